// strata-profile: the Strata side of the slow workloads as plain synchronous code, for
// `valgrind --tool=callgrind` (valgrind 3.19 crashes inside libdispatch on strata-bench's async
// main). Each case does its setup, then calls one `profiled…` function; read its inclusive
// cost (`--toggle-collect` misses the work, which runs inside `DispatchQueue.sync`):
//
//   valgrind --tool=callgrind --callgrind-out-file=/tmp/insert.out \
//       .build/release/strata-profile insert 20000
//   callgrind_annotate --inclusive=yes /tmp/insert.out | head -80
//
// Cases: insert N, saves N (one-object saves), open N, snapshot-load N, append N (× 1 MiB),
// and the request workloads: batch-insert N (rows by position; batch-insert-dictionary N, the
// same rows as dictionaries), batch-update N, batch-delete N (even keys),
// predicate-count N / predicate-ids N / predicate-ids-async N (`age BETWEEN {100, 200}` over N people), sorted-fetch N
// (all N items by createdAt as faults, reading `name`), name-sorted-fetch N (the same by `name`,
// whose sort compares strings), and the typed API's typed-insert N and
// typed-sorted-fetch N (the same work through `@Model` objects); indexed-open N (the to-do
// store with indexes on createdAt and name), indexed-age-ids N (the first fetch after open,
// which builds the index, then a second) and indexed-sorted-fetch N; unique-email-lookup N (1,000
// point lookups by unique email over N people, after one that builds the index and one that hashes
// its keys, each printed with its time and resident memory) and upsert N
// (N ÷ 10 rows by email, half new); list-items N (N items in lists of 1,000, every list's items
// read through the to-many relationship, with each item's name); observe N and history N print
// figures of their own (fetched-results controller latency; persistent history's costs). Their stores are built, checkpointed
// and reopened before the profiled call, so setup shows up outside `profiled…`.
//
// STRATA_PROFILE_ENCRYPTED=1 encrypts every store of the cases above (AES-256-GCM with the fixed
// test key of `strata-bench run --encryption`), for issue 23's costs: `append` seals 1 MiB frames,
// `open` and `snapshot-load` open sealed chunks. STRATA_PROFILE_SERIAL=1 turns
// `PersistentStore.Options.scansInParallel` off. batch-update and batch-delete print their
// call's wall and CPU time. STRATA_PROFILE_OPEN_REPEAT=K makes `open` open
// the store it built K times, each timed, for alternated before/after runs.
import Crypto
import Foundation
import Strata
import StrataBenchModels
import StrataEncryption
import StrataStorage

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]), count > 0 else {
    FileHandle.standardError.write(Data(("usage: strata-profile insert|saves|snapshot-load|append|open|batch-insert|batch-insert-dictionary|"
        + "batch-update|batch-delete|predicate-count|predicate-ids|predicate-ids-async|sorted-fetch|name-sorted-fetch|typed-insert|typed-sorted-fetch|"
        + "indexed-open|indexed-age-ids|indexed-first-fetch-background|indexed-sorted-fetch|unique-email-lookup|upsert|list-items|observe|history COUNT\n").utf8))
    exit(2)
}
let root = FileManager.default.temporaryDirectory
    .appendingPathComponent("strata-profile-\(ProcessInfo.processInfo.processIdentifier)")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }

let schema = try Schema {
    Entity("TodoItem") {
        Attribute("name", .string)
        Attribute("createdAt", .date)
        Attribute("done", .bool)
    }
}
/// The test key when STRATA_PROFILE_ENCRYPTED=1 (bytes 0…31, as strata-bench's), else `nil`.
let encryptionKey: SymmetricKey? = ProcessInfo.processInfo.environment["STRATA_PROFILE_ENCRYPTED"] == "1"
    ? SymmetricKey(data: (0..<32).map { UInt8($0) }) : nil
let options: PersistentStore.Options = {
    var options = PersistentStore.Options()
    options.automaticCheckpointBytes = nil
    options.encryptionKey = encryptionKey
    // STRATA_PROFILE_SERIAL=1: scans and batch requests' first decodes on the calling thread
    // only, for same-build comparisons with the default.
    options.scansInParallel = ProcessInfo.processInfo.environment["STRATA_PROFILE_SERIAL"] != "1"
    return options
}()
/// The storage engine's options of the `snapshot-load` and `append` cases.
let storageOptions: StorageOptions = {
    var options = StorageOptions()
    options.cipher = encryptionKey.map(AESGCMStoreCipher.init(key:))
    return options
}()

/// To-do rows like the benchmark's: short phrases, dates 30 s apart, about 30% done.
struct Row { var name: String; var createdAt: Date; var done: Bool }
let verbs = ["Call", "Buy", "Fix", "Write", "Clean", "Book", "Email", "Plan"]
let objects = ["the plumber", "milk", "the bike", "the report", "the garage", "a table", "Alice", "the trip"]
let qualifiers = ["", "tomorrow", "today", "before Friday", "next week"]
nonisolated(unsafe) var state: UInt64 = 42  // only touched by the main thread, before any work
func random(_ bound: Int) -> Int {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int((z ^ (z >> 31)) % UInt64(bound))
}
let rows = (0..<count).map { index in
    Row(name: "\(verbs[random(verbs.count)]) \(objects[random(objects.count)]) \(qualifiers[random(qualifiers.count)])",
        createdAt: Date(timeIntervalSince1970: 1_704_067_200 + Double(index) * 30 + Double(random(3600))),
        done: random(10) < 3)
}

func insert(_ row: Row, into context: ObjectContext) throws {
    let object = try context.insert("TodoItem")
    try object.setValue(.string(row.name), forKey: "name")
    try object.setValue(.date(row.createdAt), forKey: "createdAt")
    try object.setValue(.bool(row.done), forKey: "done")
}

/// strata-bench's insert: every row through one new context, then save; the context (and its
/// million objects) goes inside the profiled call, as in the harness's stopwatch.
@inline(never) func profiledInsert(_ store: PersistentStore) throws {
    let context = ObjectContext(store: store)
    try context.performAndWait {
        for row in rows { try insert(row, into: context) }
        try context.save()
    }
}

@inline(never) func profiledSaves(_ context: ObjectContext) throws {
    for row in rows {
        try context.performAndWait {
            try insert(row, into: context)
            try context.save()
        }
    }
}

@inline(never) func profiledOpen(_ directory: String) throws -> PersistentStore {
    let store = try PersistentStore.open(at: directory, schema: schema, options: options)
    precondition(store.rowCounts["TodoItem"] == count)
    return store
}

@inline(never) func profiledSnapshotRead(_ reader: SnapshotReader) throws -> Int {
    var total = 0
    for index in reader.chunks.indices { total += try reader.readChunk(index)[0].count }
    return total
}

@inline(never) func profiledAppend(_ engine: StorageEngine, _ payloads: [[UInt8]]) throws {
    for payload in payloads { _ = try engine.append(kind: 0xB0, payload: payload) }
}

/// The people schema of the predicate workloads.
let personSchema = try Schema {
    Entity("Person") {
        Attribute("firstName", .string)
        Attribute("lastName", .string)
        Attribute("age", .int64)
    }
}

/// Builds a checkpointed store at `directory` holding `rows` as to-do items, and closes it.
func buildTodoStore(_ directory: String) throws {
    let store = try PersistentStore.open(at: directory, schema: schema, options: options)
    let context = ObjectContext(store: store)
    try context.performAndWait {
        for row in rows { try insert(row, into: context) }
        try context.save()
    }
    try store.checkpoint()
    try store.close()
}

/// Builds the to-do store and reopens it, as the benchmark's fixtures are copied and opened
/// before a run.
func reopenedTodoStore(_ directory: String) throws -> PersistentStore {
    try buildTodoStore(directory)
    return try PersistentStore.open(at: directory, schema: schema, options: options)
}

/// Builds a checkpointed store at `directory` holding `count` people with ages uniform in
/// 0..<1000, and reopens it. The people go in by batch inserts of 50,000, which is quicker
/// under valgrind than a context and leaves the same snapshot after the checkpoint.
func reopenedPersonStore(_ directory: String) throws -> PersistentStore {
    let store = try PersistentStore.open(at: directory, schema: personSchema, options: options)
    for start in stride(from: 0, to: count, by: 50_000) {
        let slice = min(50_000, count - start)
        // Drawn first: the fill closure is @Sendable and runs inside the insert.
        let ages = (0..<slice).map { _ in Int64(random(1000)) }
        _ = try store.execute(BatchInsertRequest(entityName: "Person", count: slice) { index, row in
            row["firstName"] = .string("First \((start + index) % 40)")
            row["lastName"] = .string("Last \((start + index) % 60)")
            row["age"] = .int(ages[index])
        })
    }
    try store.checkpoint()
    try store.close()
    return try PersistentStore.open(at: directory, schema: personSchema, options: options)
}

/// strata-bench's batch-insert: one request of every row, built from the rows, by position
/// (or, with `dictionaries`, as a dictionary per row).
@inline(never) func profiledBatchInsert(_ store: PersistentStore, dictionaries: Bool = false) throws -> Int {
    var request = dictionaries
        ? BatchInsertRequest(entityName: "TodoItem", count: rows.count) { index, row in
            row["name"] = .string(rows[index].name)
            row["createdAt"] = .date(rows[index].createdAt)
            row["done"] = .bool(rows[index].done)
        }
        : BatchInsertRequest(entityName: "TodoItem", properties: ["name", "createdAt", "done"], count: rows.count) { index, values in
            values[0] = .string(rows[index].name)
            values[1] = .date(rows[index].createdAt)
            values[2] = .bool(rows[index].done)
        }
    request.resultType = .count
    return try store.execute(request).count ?? 0
}

/// strata-bench's batch-update: `done = true` on every item.
@inline(never) func profiledBatchUpdate(_ store: PersistentStore) throws -> Int {
    var request = BatchUpdateRequest(entityName: "TodoItem", propertiesToUpdate: ["done": .constant(true)])
    request.resultType = .count
    return try store.execute(request).count ?? 0
}

/// strata-bench's batch-delete: the items with even keys, listed by ID.
@inline(never) func profiledBatchDelete(_ store: PersistentStore) throws -> Int {
    let even = stride(from: 2, through: Int64(count), by: 2).map {
        ObjectID(storeID: store.storeID, entityName: "TodoItem", primaryKey: $0)
    }
    var request = BatchDeleteRequest(objectIDs: even)
    request.resultType = .count
    return try store.execute(request).count ?? 0
}

/// User plus system CPU seconds of the calling thread (`thread`, glibc's `RUSAGE_THREAD`, which
/// the Glibc module does not declare) or of the process (`RUSAGE_SELF`).
func cpuSeconds(thread: Bool) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(thread ? 1 : 0), &usage)   // RUSAGE_THREAD is 1, RUSAGE_SELF 0
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Minor page faults of the whole process so far.
func minorFaults() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(0), &usage)
    return usage.ru_minflt
}

/// strata-bench's predicate-count and predicate-ids: `age BETWEEN {100, 200}` on a context.
@inline(never) func profiledPredicate(_ context: ObjectContext, ids: Bool) throws -> Int {
    try context.performAndWait {
        let request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "age BETWEEN {100, 200}"))
        if ids { return try context.fetchObjectIDs(request).count }
        return try context.count(for: request)
    }
}

/// The number of IDs an asynchronous fetch delivered. `@unchecked Sendable`: written once, in
/// the completion on the context's queue, before the semaphore is signalled, and read only
/// after waiting for it.
final class DeliveredCount: @unchecked Sendable {
    var count = 0
}

/// strata-bench's predicate-ids-async: the same request as an `AsynchronousFetchRequest` of
/// object IDs, from the call until its completion has run on the context's queue.
@inline(never) func profiledPredicateAsync(_ context: ObjectContext) throws -> Int {
    var request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "age BETWEEN {100, 200}"))
    request.resultType = .objectIDs
    let delivered = DeliveredCount(), done = DispatchSemaphore(value: 0)
    let asynchronous = AsynchronousFetchRequest(fetchRequest: request) { result in
        delivered.count = result.objectIDs?.count ?? -1
        done.signal()
    }
    _ = try context.performAndWait { try context.execute(asynchronous) }
    done.wait()
    return delivered.count
}

/// strata-bench's sorted-fetch: every item by createdAt as faults, then `name` and the key of
/// each, through a new context released inside the profiled call (as in the harness).
@inline(never) func profiledSortedFetch(_ store: PersistentStore) throws -> Int {
    let context = ObjectContext(store: store)
    return try context.performAndWait {
        let items = try context.fetch(FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdAt")]))
        var characters = 0
        var keys: [Int64] = []
        keys.reserveCapacity(items.count)
        for item in items {
            characters &+= try item.string("name")?.utf8.count ?? 0
            keys.append(item.objectID.primaryKey)
        }
        return characters &+ keys.count
    }
}

/// All to-do items sorted by `name` (ASCII phrases with long shared prefixes and many ties,
/// so string comparisons dominate the sort), as faults; returns the names' bytes plus the
/// count, so that nothing is optimized away.
@inline(never) func profiledNameSortedFetch(_ store: PersistentStore) throws -> Int {
    let context = ObjectContext(store: store)
    return try context.performAndWait {
        let items = try context.fetch(FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("name")]))
        var characters = 0
        for item in items { characters &+= try item.string("name")?.utf8.count ?? 0 }
        return characters &+ items.count
    }
}

/// The to-do schema with strata-bench's two indexes (`indexed-open-vs-open`), and the
/// people schema with `age` indexed (`indexed-age-ids`).
let indexedSchema: Schema = {
    var indexed = schema
    indexed.entities[0].indexes = [["createdAt"], ["name"]]
    return try! indexed.validated()
}()
let indexedPersonSchema: Schema = {
    var indexed = personSchema
    indexed.entities[0].indexes = [["age"]]
    return try! indexed.validated()
}()

/// Reopens the closed store at `directory` with `indexed` (a migration that adds the
/// indexes), checkpoints and closes it: the indexed store the indexed cases open.
func addIndexes(_ directory: String, _ indexed: Schema) throws {
    let store = try PersistentStore.open(at: directory, schema: indexed, options: options)
    try store.checkpoint()
    try store.close()
}

/// An open of the to-do store with two indexes, and a count.
@inline(never) func profiledIndexedOpen(_ directory: String) throws -> PersistentStore {
    let store = try PersistentStore.open(at: directory, schema: indexedSchema, options: options)
    precondition(store.rowCounts["TodoItem"] == count)
    return store
}


/// strata-bench's typed-insert: every row as a `@Model` item through one new context, then save.
@inline(never) func profiledTypedInsert(_ store: PersistentStore) throws {
    let context = ObjectContext(store: store)
    try context.performAndWait {
        for row in rows { context.insert(StrataBenchModels.TodoItem(name: row.name, createdAt: row.createdAt, done: row.done)) }
        try context.save()
    }
}

/// strata-bench's typed-sorted-fetch: a `FetchDescriptor` by createdAt, then `name` and the
/// key of each model, through a new context released inside the profiled call.
@inline(never) func profiledTypedSortedFetch(_ store: PersistentStore) throws -> Int {
    let context = ObjectContext(store: store)
    return try context.performAndWait {
        let items = try context.fetch(FetchDescriptor<StrataBenchModels.TodoItem>(sortBy: [SortDescriptor(\.createdAt)]))
        var characters = 0
        var keys: [Int64] = []
        keys.reserveCapacity(items.count)
        for item in items {
            characters &+= item.name.utf8.count
            keys.append(item.persistentModelID?.primaryKey ?? -1)
        }
        return characters &+ keys.count
    }
}

/// Runs `body` and prints its wall time to standard error ("profiled call: …"), setup
/// excluded, for quick comparisons on one machine without valgrind, with the minor page faults
/// the call made (pages touched for the first time: their cost depends on the machine).
@discardableResult func timed<T>(_ body: () throws -> T) rethrows -> T {
    let clock = ContinuousClock(), before = clock.now
    let faultsBefore = minorFaults()
    let result = try body()
    FileHandle.standardError.write(Data("profiled call: \(clock.now - before); minor page faults \(minorFaults() - faultsBefore)\n".utf8))
    return result
}

let directory = root.appendingPathComponent("store").path
let start = Date()
switch arguments[1] {
case "insert":
    let store = try PersistentStore.open(at: directory, schema: schema, options: options)
    try timed { try profiledInsert(store) }
    try store.close()
case "saves":
    let store = try PersistentStore.open(at: directory, schema: schema, options: options)
    try profiledSaves(ObjectContext(store: store))
    try store.close()
case "open":
    try buildTodoStore(directory)
    // STRATA_PROFILE_OPEN_REPEAT=K opens (and closes) the one built store K times, each timed.
    for _ in 0..<max(1, Int(ProcessInfo.processInfo.environment["STRATA_PROFILE_OPEN_REPEAT"] ?? "") ?? 1) {
        try timed { try profiledOpen(directory) }.close()
    }
case "snapshot-load":
    let table = TableDescriptor(name: "TodoItem", columns: [
        ColumnDescriptor(name: "$pk", kind: .int64), ColumnDescriptor(name: "$version", kind: .int64),
        ColumnDescriptor(name: "name", kind: .bytes), ColumnDescriptor(name: "createdAt", kind: .double),
        ColumnDescriptor(name: "done", kind: .bool),
    ])
    let (engine, _) = try StorageEngine.open(at: directory, options: storageOptions)
    _ = try engine.append(kind: 0xB0, payload: [1])
    let lsn = try engine.beginCheckpoint()
    try engine.completeCheckpoint(lsn: lsn, tables: [table], metadata: []) { writer in
        for start in stride(from: 0, to: rows.count, by: 1024) {
            let chunk = rows[start..<min(start + 1024, rows.count)]
            var names = ByteColumn()
            for row in chunk { names.append(row.name.utf8) }
            try writer.append(table: 0, columns: [
                ColumnChunk(values: .int64((start..<start + chunk.count).map { Int64($0 + 1) })),
                ColumnChunk(values: .int64(Array(repeating: Int64(lsn), count: chunk.count))),
                ColumnChunk(values: .bytes(names)),
                ColumnChunk(values: .double(chunk.map { $0.createdAt.timeIntervalSinceReferenceDate })),
                ColumnChunk(values: .bool(chunk.map(\.done))),
            ])
        }
    }
    try engine.close()
    let name = try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".snap") }!
    let reader = try SnapshotReader(fileSystem: PosixFileSystem(), directory: directory, name: name,
                                    cipher: storageOptions.cipher)
    let read = try profiledSnapshotRead(reader)
    precondition(read == count)
case "append":
    let payloads = (0..<count).map { index in
        (0..<(1 << 17)).flatMap { word -> [UInt8] in
            var z = UInt64(index << 20 | word) &* 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 31)) &* 0xBF58_476D_1CE4_E5B9
            return withUnsafeBytes(of: z) { Array($0) }
        }
    }
    let (engine, _) = try StorageEngine.open(at: directory, options: storageOptions)
    try profiledAppend(engine, payloads)
    try engine.close()
case "batch-insert", "batch-insert-dictionary":
    let store = try PersistentStore.open(at: directory, schema: schema, options: options)
    let inserted = try timed { try profiledBatchInsert(store, dictionaries: arguments[1] == "batch-insert-dictionary") }
    precondition(inserted == count)
    try store.close()
case "batch-update":
    let store = try reopenedTodoStore(directory)
    let updated = try timedCall { try profiledBatchUpdate(store) }
    precondition(updated == count)
    try store.close()
case "batch-delete":
    let store = try reopenedTodoStore(directory)
    let deleted = try timedCall { try profiledBatchDelete(store) }
    precondition(deleted == count / 2)
    try store.close()
case "predicate-count", "predicate-ids", "predicate-ids-async":
    let store = try reopenedPersonStore(directory)
    let context = ObjectContext(store: store)
    let clock = ContinuousClock(), before = clock.now
    let (threadBefore, processBefore) = (cpuSeconds(thread: true), cpuSeconds(thread: false))
    let faultsBefore = minorFaults()
    let found = arguments[1] == "predicate-ids-async" ? try profiledPredicateAsync(context)
        : try profiledPredicate(context, ids: arguments[1] == "predicate-ids")
    let (threadAfter, processAfter) = (cpuSeconds(thread: true), cpuSeconds(thread: false))
    FileHandle.standardError.write(Data("profiled call: \(clock.now - before)\n".utf8))
    // The scan runs on this thread (`performAndWait` on a private context runs its body on the
    // caller's thread); work it hands to other threads shows in the process's figure only.
    FileHandle.standardError.write(Data("cpu: scanning thread \(threadAfter - threadBefore) s, process \(processAfter - processBefore) s; minor page faults \(minorFaults() - faultsBefore)\n".utf8))
    precondition(found > 0)
    try store.close()
case "sorted-fetch":
    let store = try reopenedTodoStore(directory)
    let characters = try timed { try profiledSortedFetch(store) }
    precondition(characters > 0)
    try store.close()
case "name-sorted-fetch":
    let store = try reopenedTodoStore(directory)
    let characters = try timed { try profiledNameSortedFetch(store) }
    precondition(characters > 0)
    try store.close()
case "indexed-open":
    try buildTodoStore(directory)
    try addIndexes(directory, indexedSchema)
    try timed { try profiledIndexedOpen(directory) }.close()
case "indexed-age-ids":
    // The first fetch after open builds the index (on its own thread, not in the background:
    // `buildsIndexesInBackground` off); the second reads it.
    try reopenedPersonStore(directory).close()
    try addIndexes(directory, indexedPersonSchema)
    var buildingOnFirstUse = options
    buildingOnFirstUse.buildsIndexesInBackground = false
    let store = try PersistentStore.open(at: directory, schema: indexedPersonSchema, options: buildingOnFirstUse)
    let context = ObjectContext(store: store)
    let first = try timed { try profiledPredicate(context, ids: true) }
    let second = try timed { try profiledPredicate(context, ids: true) }
    precondition(first == second && first > 0)
    try store.close()
case "indexed-first-fetch-background":
    // The first fetch after open scans and starts the age index's build on a background
    // thread of nice 19; then the time until the index is built (polled every millisecond,
    // 60 s at most), and a fetch through it.
    try reopenedPersonStore(directory).close()
    try addIndexes(directory, indexedPersonSchema)
    let store = try PersistentStore.open(at: directory, schema: indexedPersonSchema, options: options)
    let context = ObjectContext(store: store)
    let clock = ContinuousClock(), opened = clock.now
    let first = try timed { try profiledPredicate(context, ids: true) }
    var polls = 0
    let planned = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "age BETWEEN {100, 200}"))
    while try store.fetchStrategy(planned).lookupIndex == nil, polls < 60_000 {
        Thread.sleep(forTimeInterval: 0.001)
        polls += 1
    }
    FileHandle.standardError.write(Data("index built \(clock.now - opened) after the first fetch began\n".utf8))
    let second = try timed { try profiledPredicate(context, ids: true) }
    precondition(first == second && first > 0)
    try store.close()
case "indexed-sorted-fetch":
    try buildTodoStore(directory)
    try addIndexes(directory, indexedSchema)
    // The createdAt index alone, built by `fetchStrategy` (background builds off), as
    // strata-bench's indexed-sorted-fetch does: the timed fetch decodes the names itself.
    var buildingOnFirstUse = options
    buildingOnFirstUse.buildsIndexesInBackground = false
    let store = try PersistentStore.open(at: directory, schema: indexedSchema, options: buildingOnFirstUse)
    let request = FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdAt")])
    let walked = try store.fetchStrategy(request).orderIndex
    precondition(walked == ["createdAt"], "the sorted fetch does not walk the index")
    let characters = try timed { try profiledSortedFetch(store) }
    precondition(characters > 0)
    try store.close()
case "typed-insert":
    let store = try PersistentStore.open(at: directory, schema: schema, options: options)
    try timed { try profiledTypedInsert(store) }
    try store.close()
case "typed-sorted-fetch":
    let store = try reopenedTodoStore(directory)
    let characters = try timed { try profiledTypedSortedFetch(store) }
    precondition(characters > 0)
    try store.close()
case "unique-email-lookup":
    try runUniqueLookup(directory, count: count)
case "upsert":
    try runUpsert(directory, count: count)
case "list-items":
    let store = try reopenedListsStore(directory)
    let read = try timed { try profiledListItems(store) }
    precondition(read > count)
    try store.close()
case "observe":
    try measureObservation(directory: directory, count: count)
case "history":
    try measureHistory(directory: directory, count: count)
default:
    FileHandle.standardError.write(Data("unknown case \(arguments[1])\n".utf8))
    exit(2)
}
FileHandle.standardError.write(Data("\(arguments[1]) \(count): \(Date().timeIntervalSince(start)) s\n".utf8))

/// Runs `body`, printing its wall time and CPU time (the calling thread's and the process's:
/// a request that decodes chunks on every core shows the difference) and the minor page faults
/// of the process to standard error.
func timedCall<T>(_ body: () throws -> T) rethrows -> T {
    let clock = ContinuousClock(), before = clock.now
    let (threadBefore, processBefore) = (cpuSeconds(thread: true), cpuSeconds(thread: false))
    let faultsBefore = minorFaults()
    let result = try body()
    let (threadAfter, processAfter) = (cpuSeconds(thread: true), cpuSeconds(thread: false))
    FileHandle.standardError.write(Data("profiled call: \(clock.now - before)\n".utf8))
    FileHandle.standardError.write(Data("cpu: calling thread \(threadAfter - threadBefore) s, process \(processAfter - processBefore) s; minor page faults \(minorFaults() - faultsBefore)\n".utf8))
    return result
}
