import Foundation
import StrataStorage

/// A set of object IDs that costs next to nothing for a million rows: what batch requests,
/// store changes and ``ObjectContext/mergeChanges(updated:deleted:into:)-(ObjectIDSet,ObjectIDSet,_)`` use.
///
/// A batch request keeps the keys it touched as runs of consecutive primary keys per entity
/// (a million keys of one entity are one run), and so does this set: counting, iterating
/// and ``contains(_:)`` work on the runs, and no `ObjectID` is made or hashed until you
/// iterate. A set made from other IDs (``init(_:)``) holds a `Set<ObjectID>`.
///
/// For example, "check all" and the merge that shows it:
/// ```swift
/// var checkAll = BatchUpdateRequest(entityName: "TodoItem", propertiesToUpdate: ["done": .constant(true)])
/// checkAll.resultType = .objectIDs
/// let result = try store.execute(checkAll)
/// ObjectContext.mergeChanges(updated: result.objectIDSet ?? [], into: [viewContext])
/// ```
///
/// Two sets are equal when they hold the same IDs, however they store them; hashing uses the
/// count alone, so hashing costs nothing.
public struct ObjectIDSet: Sendable, Hashable, Sequence, ExpressibleByArrayLiteral, CustomStringConvertible {
    enum Storage: Sendable {
        case set(Set<ObjectID>)
        case ranges(LazyObjectIDs)
    }

    var storage: Storage

    /// An empty set.
    public init() { storage = .set([]) }

    /// The IDs of `ids` (duplicates count once).
    /// - Complexity: O(n), hashing every ID.
    public init(_ ids: some Sequence<ObjectID>) {
        if let same = ids as? ObjectIDSet { self = same; return }
        storage = .set(ids as? Set<ObjectID> ?? Set(ids))
    }

    /// The IDs listed.
    public init(arrayLiteral ids: ObjectID...) { self.init(ids) }

    /// The IDs of `keys` in each named entity of the store `storeID`.
    init(storeID: UUID, ranges: [(entityName: String, keys: KeyRanges)]) {
        let nonEmpty = ranges.filter { !$0.keys.runs.isEmpty }
        storage = nonEmpty.isEmpty ? .set([]) : .ranges(LazyObjectIDs(storeID: storeID, ranges: nonEmpty))
    }

    /// How many IDs there are.
    /// - Complexity: O(1).
    public var count: Int {
        switch storage {
        case .set(let set): return set.count
        case .ranges(let lazy): return lazy.count
        }
    }

    /// Whether the set is empty.
    public var isEmpty: Bool { count == 0 }

    /// Whether `id` is in the set.
    /// - Complexity: O(log r) for r runs of keys; O(1) for a set made from other IDs.
    public func contains(_ id: ObjectID) -> Bool {
        switch storage {
        case .set(let set): return set.contains(id)
        case .ranges(let lazy):
            guard id.storeID == lazy.storeID else { return false }
            return lazy.ranges.contains { $0.entityName == id.entityName && $0.keys.contains(id.primaryKey) }
        }
    }

    /// The IDs as a `Set`, made on first use and then shared by every copy.
    /// - Complexity: O(n) the first time for a set of key runs.
    var set: Set<ObjectID> {
        switch storage {
        case .set(let set): return set
        case .ranges(let lazy): return lazy.set
        }
    }

    /// The key runs per entity, when the set holds them (`nil` for a set of other IDs).
    var keyRanges: (storeID: UUID, ranges: [(entityName: String, keys: KeyRanges)])? {
        guard case .ranges(let lazy) = storage else { return nil }
        return (lazy.storeID, lazy.ranges)
    }

    /// Iterates the IDs: by entity, then ascending key, for a set of key runs.
    public func makeIterator() -> Iterator {
        switch storage {
        case .set(let set): return Iterator(source: .set(set.makeIterator()))
        case .ranges(let lazy): return Iterator(source: .ranges(lazy, entity: 0, run: 0, next: lazy.ranges.first?.keys.runs.first?.first ?? 0))
        }
    }

    /// The iterator of an ``ObjectIDSet``.
    public struct Iterator: IteratorProtocol {
        enum Source {
            case set(Set<ObjectID>.Iterator)
            case ranges(LazyObjectIDs, entity: Int, run: Int, next: Int64)
        }
        var source: Source

        /// The next ID, or `nil` at the end.
        public mutating func next() -> ObjectID? {
            switch source {
            case .set(var iterator):
                let id = iterator.next()
                source = .set(iterator)
                return id
            case .ranges(let lazy, var entity, var run, var key):
                while entity < lazy.ranges.count {
                    let runs = lazy.ranges[entity].keys.runs
                    if run < runs.count {
                        if key < runs[run].first + runs[run].count {
                            let id = ObjectID(entity: lazy.entities[entity], primaryKey: key)
                            source = .ranges(lazy, entity: entity, run: run, next: key + 1)
                            return id
                        }
                        run += 1
                        if run < runs.count { key = runs[run].first }
                        continue
                    }
                    entity += 1
                    run = 0
                    if entity < lazy.ranges.count { key = lazy.ranges[entity].keys.runs.first?.first ?? 0 }
                }
                source = .ranges(lazy, entity: entity, run: run, next: key)
                return nil
            }
        }
    }

    /// The number of IDs, without making them.
    public var underestimatedCount: Int { count }

    /// Whether `a` and `b` hold the same IDs.
    /// - Complexity: O(r) for two sets of key runs of one store; otherwise O(n).
    public static func == (a: ObjectIDSet, b: ObjectIDSet) -> Bool {
        guard a.count == b.count else { return false }
        if let x = a.keyRanges, let y = b.keyRanges, x.storeID == y.storeID {
            let xs = x.ranges.sorted { $0.entityName < $1.entityName }, ys = y.ranges.sorted { $0.entityName < $1.entityName }
            return xs.count == ys.count && zip(xs, ys).allSatisfy { $0.entityName == $1.entityName && $0.keys == $1.keys }
        }
        return a.allSatisfy(b.contains)
    }

    /// Hashes the count (equal sets have equal counts, whatever their storage).
    public func hash(into hasher: inout Hasher) { hasher.combine(count) }

    /// The count and, for a small set, the IDs.
    public var description: String {
        count <= 8 ? "ObjectIDSet(\(map(\.description).sorted()))" : "ObjectIDSet(\(count) IDs)"
    }
}

/// Key ranges and, once asked for, the `Set<ObjectID>` they stand for.
final class LazyObjectIDs: Sendable {
    let storeID: UUID
    /// Distinct entities, each with its keys.
    let ranges: [(entityName: String, keys: KeyRanges)]
    /// The interned store-and-entity pair of each of `ranges`.
    let entities: [ObjectIDEntity]
    let count: Int
    private let materialized = Locked<Set<ObjectID>?>(nil)

    init(storeID: UUID, ranges: [(entityName: String, keys: KeyRanges)]) {
        self.storeID = storeID
        self.ranges = ranges
        entities = ranges.map { ObjectIDEntity.interned(storeID: storeID, entityName: $0.entityName) }
        count = ranges.reduce(0) { $0 + $1.keys.count }
    }

    var set: Set<ObjectID> {
        if let done = materialized.withLock({ $0 }) { return done }
        var result = Set<ObjectID>(minimumCapacity: count)
        for ((_, keys), entity) in zip(ranges, entities) {
            for run in keys.runs {
                for key in run.first..<(run.first + run.count) {
                    result.insert(ObjectID(entity: entity, primaryKey: key))
                }
            }
        }
        return materialized.withLock { cached in
            if let cached { return cached }
            cached = result
            return result
        }
    }
}
