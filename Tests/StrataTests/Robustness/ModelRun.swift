import Foundation
import StrataTestSupport
@testable import Strata
import StrataStorage

/// Counts of what the model-based runs did, for the summary line.
struct ModelRunStatistics {
    var steps = 0
    var commits = 0
    var batchRequests = 0
    var asyncFetches = 0
    var checkpoints = 0
    var powerLosses = 0
    var processCrashes = 0
    var crashesDuringRecovery = 0
    var recoveredUncertainCommit = 0
    var invariantChecks = 0

    mutating func add(_ other: ModelRunStatistics) {
        steps += other.steps; commits += other.commits; batchRequests += other.batchRequests
        asyncFetches += other.asyncFetches; checkpoints += other.checkpoints
        powerLosses += other.powerLosses; processCrashes += other.processCrashes
        crashesDuringRecovery += other.crashesDuringRecovery
        recoveredUncertainCommit += other.recoveredUncertainCommit; invariantChecks += other.invariantChecks
    }
}

/// Runs model operations against a store on a ``SimulatedFileSystem`` and against a
/// ``ReferenceModel``, checking after every step that they agree.
///
/// Crashes: a `crash` step arms a crash at a random upcoming file-system call and a
/// countdown of steps; when a write fails (the crash point was reached) or the countdown
/// ends, the disk is replaced by its image after a power loss (unsynced writes dropped,
/// torn, zeroed or garbage-filled) or a process crash, and the store is reopened — sometimes
/// crashing again during that recovery. The recovered state must be the last acknowledged
/// commit's or that of a commit that was in flight (failed) when the crash came.
final class ModelRun {
    private(set) var fs = SimulatedFileSystem()
    private(set) var store: PersistentStore
    private var context: ObjectContext
    private(set) var model = ReferenceModel()
    /// States of commits that failed after the crash point was armed: they may or may not
    /// have reached the disk.
    private var uncertain: [GraphState] = []
    private var crashArmed = false
    private var countdown = 0
    private var crashWord: UInt64 = 0
    private let segmentSize: Int64
    private let checkInvariants: Bool
    private(set) var statistics = ModelRunStatistics()
    private(set) var trace: [String] = []

    init(seed: UInt64) throws {
        segmentSize = [1024, 4096, 64 << 20][Int(seed % 3)]
        checkInvariants = RobustnessSchema.checksInvariants
        store = try PersistentStore.open(at: RobustnessSchema.directory, schema: RobustnessSchema.schema,
                                         options: RobustnessSchema.options(fs, segmentSize: segmentSize))
        context = ObjectContext(store: store, name: "writer")
    }

    /// Runs every step, then a final clean close and reopen; throws the first mismatch.
    func run(_ operations: [ModelOperation]) throws {
        for (index, operation) in operations.enumerated() {
            trace.append("\(index): \(operation)")
            do {
                try step(operation)
            } catch let failure as ModelFailure {
                throw ModelFailure("step \(index) \(operation): \(failure.description)")
            } catch {
                guard crashArmed else { throw ModelFailure("step \(index) \(operation): unexpected error \(error)") }
                try crashAndRecover()
            }
            if crashArmed {
                countdown -= 1
                if countdown <= 0 { try crashAndRecover() }
            }
            try checkVisibleState(after: "step \(index) \(operation)")
            statistics.steps += 1
        }
        if crashArmed { try crashAndRecover() }
        try reopen()
        try checkVisibleState(after: "the final reopen")
    }

    // MARK: Steps

    private func step(_ operation: ModelOperation) throws {
        var r = SplitMix64(seed: operation.word)
        func pick(_ keys: [Int64]) -> Int64? { keys.isEmpty ? nil : keys[Int(r.next() % UInt64(keys.count))] }
        func object(_ entity: String, _ key: Int64) throws -> ManagedObject {
            try context.existingObject(with: RobustnessSchema.id(store, entity, key))
        }
        switch operation.kind {
        case .insertParent:
            let row = ParentRow(name: "p\(r.next() % 50)", count: Int64(r.next() % 200) - 100, flag: r.next() % 2 == 0)
            let key = try context.performAndWait {
                let parent = try context.insert("Parent")
                try parent.setValues(["name": .string(row.name), "count": .int(row.count), "flag": .bool(row.flag)])
                return parent.objectID.primaryKey
            }
            model.pending.parents[key] = row
        case .insertChild:
            var row = ChildRow(value: Int64(r.next() % 100), note: r.next() % 3 == 0 ? nil : "c\(r.next() % 20)", parent: nil)
            if r.next() % 2 == 0 { row.parent = pick(model.aliveParents) }
            let key = try context.performAndWait {
                let child = try context.insert("Child")
                try child.setValue(.int(row.value), forKey: "value")
                try child.setValue(row.note.map { .string($0) } ?? .null, forKey: "note")
                if let parent = row.parent { try child.setObject(try object("Parent", parent), forKey: "parent") }
                return child.objectID.primaryKey
            }
            model.pending.children[key] = row
        case .update:
            if r.next() % 2 == 0, let key = pick(model.aliveParents) {
                var row = model.pending.parents[key]!
                let field = r.next() % 3
                try context.performAndWait {
                    let parent = try object("Parent", key)
                    switch field {
                    case 0: row.name = "u\(r.next() % 50)"; try parent.setValue(.string(row.name), forKey: "name")
                    case 1: row.count = Int64(r.next() % 200) - 100; try parent.setValue(.int(row.count), forKey: "count")
                    default: row.flag.toggle(); try parent.setValue(.bool(row.flag), forKey: "flag")
                    }
                }
                model.pending.parents[key] = row
            } else if let key = pick(model.aliveChildren) {
                var row = model.pending.children[key]!
                let field = r.next() % 2
                try context.performAndWait {
                    let child = try object("Child", key)
                    if field == 0 {
                        row.value = Int64(r.next() % 100); try child.setValue(.int(row.value), forKey: "value")
                    } else {
                        row.note = r.next() % 2 == 0 ? nil : "v\(r.next() % 20)"
                        try child.setValue(row.note.map { .string($0) } ?? .null, forKey: "note")
                    }
                }
                model.pending.children[key] = row
            }
        case .delete:
            if r.next() % 3 == 0, let key = pick(model.aliveParents) {
                try context.performAndWait { context.delete(try object("Parent", key)) }
                model.deletedParents.insert(key)
            } else if let key = pick(model.aliveChildren) {
                try context.performAndWait { context.delete(try object("Child", key)) }
                model.deletedChildren.insert(key)
            }
        case .relate:
            guard let child = pick(model.aliveChildren), let parent = pick(model.aliveParents) else { return }
            let viaToMany = r.next() % 2 == 0
            try context.performAndWait {
                let c = try object("Child", child), p = try object("Parent", parent)
                if viaToMany { try p.add(c, toKey: "children") } else { try c.setObject(p, forKey: "parent") }
            }
            model.pending.children[child]!.parent = parent
        case .unrelate:
            guard let child = pick(model.aliveChildren.filter { model.pending.children[$0]!.parent != nil }) else { return }
            let parent = model.pending.children[child]!.parent!
            let viaToMany = r.next() % 2 == 0 && !model.deletedParents.contains(parent)
            try context.performAndWait {
                let c = try object("Child", child)
                if viaToMany { try object("Parent", parent).remove(c, fromKey: "children") } else { try c.setObject(nil, forKey: "parent") }
            }
            model.pending.children[child]!.parent = nil
        case .save:
            try save()
        case .rollback:
            context.performAndWait { context.rollback() }
            model.rollback()
        case .batchUpdate, .batchDelete, .batchInsert:
            if model.hasChanges || context.performAndWait({ context.hasChanges }) { return try save() }
            try batch(operation.kind, &r)
        case .asyncFetch:
            try asyncFetch(&r)
        case .checkpoint:
            try store.checkpoint()
            statistics.checkpoints += 1
        case .crash:
            guard !crashArmed else { return }
            crashArmed = true
            crashWord = r.next()
            countdown = 1 + Int(r.next() % 8)
            fs.crash(atCall: fs.callCount + 1 + Int(r.next() % 60))
        case .reopen:
            guard !crashArmed else { return }
            try reopen()
        }
    }

    private func save() throws {
        let expected = model.afterSave
        do {
            try context.performAndWait { try context.save() }
        } catch {
            if crashArmed { uncertain.append(expected) }
            throw error
        }
        model.save()
        statistics.commits += 1
        try checkInvariantsAfterCommit()
    }

    private func batch(_ kind: ModelOperation.Kind, _ r: inout SplitMix64) throws {
        var expected = model.committed
        let parents = r.next() % 2 == 0
        do {
            switch kind {
            case .batchUpdate where parents:
                let threshold = Int64(r.next() % 150) - 50, amount = Int64(r.next() % 7) + 1
                var request = BatchUpdateRequest(entityName: "Parent", predicate: try ObjectPredicate(format: "count >= \(threshold)"))
                request.propertiesToUpdate = ["count": .add("count", .int(amount)), "flag": .not("flag")]
                for (key, row) in model.committed.parents where row.count >= threshold {
                    expected.parents[key]!.count += amount
                    expected.parents[key]!.flag.toggle()
                }
                _ = try store.execute(request)
            case .batchUpdate:
                let threshold = Int64(r.next() % 100), value = Int64(r.next() % 100)
                let note: String? = r.next() % 2 == 0 ? nil : "b\(r.next() % 9)"
                var request = BatchUpdateRequest(entityName: "Child", predicate: try ObjectPredicate(format: "value < \(threshold)"))
                request.propertiesToUpdate = ["value": .constant(.int(value)), "note": .constant(note.map { .string($0) } ?? .null)]
                for (key, row) in model.committed.children where row.value < threshold {
                    expected.children[key]!.value = value
                    expected.children[key]!.note = note
                }
                _ = try store.execute(request)
            case .batchDelete where parents:
                let useFlag = r.next() % 2 == 0, threshold = Int64(r.next() % 100) - 60
                let predicate = useFlag ? "flag == YES" : "count < \(threshold)"
                let matching = Set(model.committed.parents.filter { useFlag ? $0.value.flag : $0.value.count < threshold }.keys)
                expected = model.afterBatchDelete(parents: matching, children: [])
                var request = BatchDeleteRequest(entityName: "Parent", predicate: try ObjectPredicate(format: predicate))
                request.resultType = .count
                let result = try store.execute(request)
                let cascaded = model.committed.children.values.filter { $0.parent.map(matching.contains) == true }.count
                if result.count != matching.count + cascaded {
                    throw ModelFailure("batch delete reported \(result.count ?? -1) deletions, the model \(matching.count + cascaded)")
                }
            case .batchDelete:
                let keys = Set(model.committed.children.keys.filter { _ in r.next() % 3 == 0 })
                guard !keys.isEmpty else { return }
                expected = model.afterBatchDelete(parents: [], children: keys)
                _ = try store.execute(BatchDeleteRequest(objectIDs: keys.sorted().map { RobustnessSchema.id(store, "Child", $0) }))
            case .batchInsert where parents:
                let rows = (0..<(1 + r.next() % 4)).map { _ in ParentRow(name: "i\(r.next() % 50)", count: Int64(r.next() % 200) - 100, flag: r.next() % 2 == 0) }
                let first = store.writer.withLock { $0.nextPrimaryKeys[store.layoutIndex["Parent"]!] }
                for (offset, row) in rows.enumerated() { expected.parents[first + Int64(offset)] = row }
                var request = BatchInsertRequest(entityName: "Parent", objects: rows.map { ["name": .string($0.name), "count": .int($0.count), "flag": .bool($0.flag)] })
                request.resultType = .objectIDs
                let result = try store.execute(request)
                if result.objectIDs?.map(\.primaryKey) != rows.indices.map({ first + Int64($0) }) {
                    throw ModelFailure("batch insert returned keys \(result.objectIDs?.map(\.primaryKey) ?? []), expected from \(first)")
                }
            default:
                let committedParents = model.committed.parents.keys.sorted()
                let rows = (0..<(1 + r.next() % 4)).map { _ -> ChildRow in
                    let parent = committedParents.isEmpty || r.next() % 3 == 0 ? nil : committedParents[Int(r.next() % UInt64(committedParents.count))]
                    return ChildRow(value: Int64(r.next() % 100), note: r.next() % 2 == 0 ? nil : "j\(r.next() % 9)", parent: parent)
                }
                let first = store.writer.withLock { $0.nextPrimaryKeys[store.layoutIndex["Child"]!] }
                for (offset, row) in rows.enumerated() { expected.children[first + Int64(offset)] = row }
                let objects = rows.map { row -> [String: AttributeValue] in
                    var values: [String: AttributeValue] = ["value": .int(row.value)]
                    if let note = row.note { values["note"] = .string(note) }
                    if let parent = row.parent { values["parent"] = .int(parent) }
                    return values
                }
                var request = BatchInsertRequest(entityName: "Child", objects: objects)
                request.resultType = .objectIDs
                let result = try store.execute(request)
                if result.objectIDs?.map(\.primaryKey) != rows.indices.map({ first + Int64($0) }) {
                    throw ModelFailure("batch insert returned keys \(result.objectIDs?.map(\.primaryKey) ?? []), expected from \(first)")
                }
            }
        } catch let failure as ModelFailure {
            throw failure
        } catch {
            if crashArmed { uncertain.append(expected) }
            throw error
        }
        // Batch requests bypass contexts (as in Core Data): start the writer afresh.
        context.performAndWait { context.reset() }
        model.committed = expected
        model.rollback()
        statistics.batchRequests += 1
        try checkInvariantsAfterCommit()
    }

    /// An asynchronous fetch with a predicate, against the model's committed rows and a
    /// synchronous fetch of the same request that leaves out pending changes.
    private func asyncFetch(_ r: inout SplitMix64) throws {
        let n = Int64(r.next() % 120) - 20
        let (entity, format, expected): (String, String, [Int64]) = switch r.next() % 4 {
        case 0: ("Parent", "count > \(n)", model.committed.parents.filter { $0.value.count > n }.keys.sorted())
        case 1: ("Parent", "flag == YES", model.committed.parents.filter { $0.value.flag }.keys.sorted())
        case 2: ("Child", "value < \(n)", model.committed.children.filter { $0.value.value < n }.keys.sorted())
        default: ("Child", "note == nil", model.committed.children.filter { $0.value.note == nil }.keys.sorted())
        }
        var request = FetchRequest(entityName: entity, predicate: try ObjectPredicate(format: format))
        request.includesPendingChanges = false
        let done = DispatchSemaphore(value: 0)
        let box = LockedBox<[Int64]?>(nil)
        let asynchronous = AsynchronousFetchRequest(fetchRequest: request) { result in
            box.set(result.objectIDs?.map(\.primaryKey))
            done.signal()
        }
        _ = try context.performAndWait { try context.execute(asynchronous) }
        guard done.wait(timeout: .now() + 30) == .success else { throw ModelFailure("the asynchronous fetch never completed") }
        let fetched = box.get()?.sorted()
        let synchronous = try context.performAndWait { try context.fetchObjectIDs(request).map(\.primaryKey) }.sorted()
        if fetched != expected {
            throw ModelFailure("asynchronous fetch \(entity) [\(format)] gave \(fetched.map { "\($0)" } ?? "nil"), the model \(expected)")
        }
        if synchronous != expected {
            throw ModelFailure("synchronous fetch \(entity) [\(format)] gave \(synchronous), the model \(expected)")
        }
        statistics.asyncFetches += 1
    }

    // MARK: Crashes and reopening

    private func crashAndRecover() throws {
        var r = SplitMix64(seed: crashWord)
        let processCrash = r.next() % 5 == 0
        var image = processCrash ? fs.processCrashImage() : fs.powerLossImage(seed: r.next())
        if processCrash { statistics.processCrashes += 1 } else { statistics.powerLosses += 1 }
        trace.append("   → \(processCrash ? "process crash" : "power loss") (acknowledged state \(model.committed.parents.count)P/\(model.committed.children.count)C, \(uncertain.count) in flight)")
        _ = context // the old store, context and file system are abandoned, as a dead process's would be
        if r.next() % 3 == 0 {
            // Crash again while recovering: the open may truncate a torn tail or remove files.
            image.crash(atCall: 1 + Int(r.next() % 12))
            _ = try? PersistentStore.open(at: RobustnessSchema.directory, schema: RobustnessSchema.schema,
                                          options: RobustnessSchema.options(image, segmentSize: segmentSize))
            image = image.powerLossImage(seed: r.next())
            statistics.crashesDuringRecovery += 1
        }
        fs = image
        crashArmed = false
        do {
            store = try PersistentStore.open(at: RobustnessSchema.directory, schema: RobustnessSchema.schema,
                                             options: RobustnessSchema.options(fs, segmentSize: segmentSize))
        } catch {
            throw ModelFailure("reopening after the crash failed: \(error)")
        }
        context = ObjectContext(store: store, name: "writer")
        let recovered = try RobustnessSchema.visibleState(of: store)
        if recovered != model.committed {
            guard uncertain.contains(recovered) else {
                throw ModelFailure("after the crash the store holds \(recovered), which is neither the last acknowledged state \(model.committed) nor one of the \(uncertain.count) commit(s) in flight. Differences from the acknowledged state: \(recovered.difference(from: model.committed))")
            }
            statistics.recoveredUncertainCommit += 1
        }
        model.committed = recovered
        model.rollback()
        uncertain = []
        try checkInvariantsAfterCommit()
    }

    private func reopen() throws {
        try store.close()
        store = try PersistentStore.open(at: RobustnessSchema.directory, schema: RobustnessSchema.schema,
                                         options: RobustnessSchema.options(fs, segmentSize: segmentSize))
        context = ObjectContext(store: store, name: "writer")
        model.rollback()
        try checkInvariantsAfterCommit()
    }

    // MARK: Checks

    private func checkInvariantsAfterCommit() throws {
        guard checkInvariants, !crashArmed else { return }
        do { try store.checkInvariants() } catch { throw ModelFailure("invariants: \(error)") }
        statistics.invariantChecks += 1
    }

    /// The store's committed state (through a fresh context) equals the model's, and the
    /// writer's view (with its unsaved changes) equals the model's pending state.
    private func checkVisibleState(after what: String) throws {
        let visible = try RobustnessSchema.visibleState(of: store)
        if visible != model.committed {
            throw ModelFailure("after \(what) a fresh context sees \(visible) but the model holds \(model.committed). Differences: \(visible.difference(from: model.committed))")
        }
        let pending = try context.performAndWait {
            var view = GraphState()
            for object in try context.fetch(FetchRequest(entityName: "Parent")) {
                view.parents[object.objectID.primaryKey] = ParentRow(name: try object.string("name") ?? "<nil>", count: try object.int("count") ?? -999_999, flag: try object.bool("flag") ?? false)
            }
            for object in try context.fetch(FetchRequest(entityName: "Child")) {
                view.children[object.objectID.primaryKey] = ChildRow(value: try object.int("value") ?? -999_999, note: try object.string("note"), parent: try object.object(forKey: "parent")?.objectID.primaryKey)
            }
            return view
        }
        var expected = model.pending
        for key in model.deletedParents { expected.parents[key] = nil }
        for key in model.deletedChildren { expected.children[key] = nil }
        if pending != expected {
            throw ModelFailure("after \(what) the writing context sees \(pending) but the model's unsaved view is \(expected). Differences: \(pending.difference(from: expected))")
        }
    }
}

/// A value set on one thread and read on another.
final class LockedBox<Value: Sendable>: Sendable {
    private let value: Locked<Value>
    init(_ value: Value) { self.value = Locked(value) }
    func set(_ newValue: Value) { value.withLock { $0 = newValue } }
    func get() -> Value { value.withLock { $0 } }
    func mutate(_ body: (inout Value) -> Void) { value.withLock { body(&$0) } }
}
