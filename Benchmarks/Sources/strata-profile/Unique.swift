import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Strata

/// strata-bench's uniqueness schema: people with a unique email.
let uniqueSchema = try! Schema {
    Entity("Person", uniquenessConstraints: [["email"]]) {
        Attribute("email", .string)
        Attribute("firstName", .string)
        Attribute("age", .int64)
    }
}

/// The email of person `i`, as strata-bench writes it.
func uniqueEmail(_ i: Int) -> String { "person\(i)@example.org" }

/// Builds a checkpointed store at `directory` holding `count` people with unique emails (by
/// batch inserts of 100,000, as strata-bench does), and reopens it.
func reopenedUniqueStore(_ directory: String, count: Int) throws -> PersistentStore {
    let store = try PersistentStore.open(at: directory, schema: uniqueSchema, options: options)
    for start in stride(from: 0, to: count, by: 100_000) {
        let slice = min(100_000, count - start)
        _ = try store.execute(BatchInsertRequest(entityName: "Person", count: slice) { i, row in
            row["email"] = .string(uniqueEmail(start + i))
            row["firstName"] = .string("F\((start + i) % 1000)")
            row["age"] = .int(Int64((start + i) % 120))
        })
    }
    try store.checkpoint()
    try store.close()
    return try PersistentStore.open(at: directory, schema: uniqueSchema, options: options)
}

/// strata-bench's unique-email-lookup: `lookups` point lookups by email through one context
/// (requests made beforehand). Returns the number of IDs found.
@inline(never) func profiledLookups(_ context: ObjectContext, _ requests: [FetchRequest]) throws -> Int {
    try context.performAndWait {
        var found = 0
        for request in requests { found += try context.fetchObjectIDs(request).count }
        return found
    }
}

/// strata-bench's upsert: `rows` (person number, first name, age) by email, one request.
@inline(never) func profiledUpsert(_ store: PersistentStore, _ rows: [(Int, String, Int64)]) throws {
    var request = BatchInsertRequest(entityName: "Person", properties: ["email", "firstName", "age"],
                                     count: rows.count) { position, values in
        let (person, name, age) = rows[position]
        values[0] = .string(uniqueEmail(person))
        values[1] = .string(name)
        values[2] = .int(age)
    }
    request.mode = .upsert
    _ = try store.execute(request)
}

/// The unique-email-lookup case: one warm-up lookup (which builds the email index), then
/// 1,000 random lookups timed together (the time printed is for all of them).
func runUniqueLookup(_ directory: String, count: Int) throws {
    let store = try reopenedUniqueStore(directory, count: count)
    let context = ObjectContext(store: store)
    var state: UInt64 = 0x756E_6971
    let requests = try (0..<1_000).map { _ -> FetchRequest in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let person = Int((state >> 33) % UInt64(count))
        return FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "email == %@", uniqueEmail(person)))
    }
    // The warm-up goes through other functions, so that `--toggle-collect='*profiledLookups*'`
    // counts the timed lookups alone: `buildIndexes()` builds the email index, then the first
    // probe hashes its keys; each step's time and resident memory are printed.
    try warmUp("the email index (buildIndexes)") {
        try store.buildIndexes()
        return 1
    }
    try warmUp("its hashed keys (first key probe)") {
        try context.performAndWait { try context.fetchObjectIDs(requests[0]).count }
    }
    let found = try timed { try profiledLookups(context, requests) }
    precondition(found == requests.count, "found \(found) of \(requests.count)")
    try store.close()
}

/// Runs `body` (one lookup that finds one person) and prints its time and how much the
/// resident memory grew ("warm-up: …"): what it keeps, since the heap's free memory is
/// returned to the system before each reading (the store was built in this process).
func warmUp(_ what: String, _ body: () throws -> Int) throws {
    let resident = residentBytes(trimmed: true)
    let clock = ContinuousClock(), before = clock.now
    let found = try body()
    let elapsed = clock.now - before
    precondition(found == 1, "found \(found) people in the warm-up")
    let grown = Double(residentBytes(trimmed: true) - resident) / 1_048_576
    FileHandle.standardError.write(Data("warm-up, \(what): \(elapsed), resident memory +\(String(format: "%.1f", grown)) MiB\n".utf8))
}

/// The process's resident memory (`VmRSS` in `/proc/self/status`), in bytes; 0 without `/proc`.
/// `trimmed`: after returning the heap's free memory to the system (`malloc_trim`).
func residentBytes(trimmed: Bool) -> Int {
    #if canImport(Glibc)
    // glibc's `malloc_trim`, which the Glibc module does not declare.
    if trimmed, let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        _ = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)(0)
    }
    #endif
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kibibytes = Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" })[1]) else { return 0 }
    return kibibytes * 1024
}

/// The upsert case: count ÷ 10 rows, half known, half new, into `count` people. With
/// `STRATA_PROFILE_UPSERT_INDEXED=1`, a lookup by email first builds the email index (after
/// a reopen it is built on first use), so the upsert probes it and keeps it up to date.
func runUpsert(_ directory: String, count: Int) throws {
    let store = try reopenedUniqueStore(directory, count: count)
    if ProcessInfo.processInfo.environment["STRATA_PROFILE_UPSERT_INDEXED"] == "1" {
        let context = ObjectContext(store: store)
        let request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "email == %@", uniqueEmail(0)))
        let found = try context.performAndWait { try context.fetchObjectIDs(request).count }
        precondition(found == 1, "found \(found) people with the first email")
    }
    var state: UInt64 = 0x7570_7365
    let rows = (0..<max(count / 10, 2)).map { position -> (Int, String, Int64) in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let person = position % 2 == 0 ? Int((state >> 33) % UInt64(count)) : count + position
        return (person, "U\(position)", Int64(position % 100))
    }
    try timed { try profiledUpsert(store, rows) }
    let people = store.rowCounts["Person"]
    precondition(people == count + rows.count / 2, "\(String(describing: people)) people after the upsert")
    try store.close()
}
