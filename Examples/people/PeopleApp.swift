import Foundation
import Strata

/// The background-fetch recipe from the Core Data tutorials: a private-queue context finds
/// the IDs of the people aged 100 to 200, and the main-queue context turns those IDs into
/// its own objects. Objects never cross queues; IDs do.
///
/// The main thread runs `RunLoop.main`, as an app's main thread does: that is what services
/// the main dispatch queue *on the main thread*. (`dispatchMain()`, and with it an `async`
/// `main`, exits the main thread on Linux and drains the main queue on a worker thread.)
@main
struct PeopleApp {
    static let usage = """
        usage: people [--store DIR] [--people N]

        Creates a Person store with N people (default 100,000) when it is empty, then fetches
        the IDs of the people aged 100 to 200 on a private-queue context and turns them into
        objects on the main-queue context.
        """

    static func main() {
        var path = "./people.strata"
        var people = 100_000
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--store" where !arguments.isEmpty: path = arguments.removeFirst()
            case "--people" where Int(arguments.first ?? "") != nil: people = Int(arguments.removeFirst())!
            case "-h", "--help": print(usage); exit(0)
            default: fail("bad argument '\(argument)'\n\n\(usage)", code: 64)
            }
        }
        do {
            let store = try PersistentStore.open(at: path, schema: makeSchema())
            print("Opened \(path) (LSN \(store.lastLSN))")
            try populate(store, people: people)
            start(store)
        } catch {
            fail("\(error)", code: 1)
        }
        RunLoop.main.run()  // services the main queue until start(_:) exits
    }

    static func makeSchema() throws -> Schema {
        try Schema {
            Entity("Person") {
                Attribute("firstName", .string)
                Attribute("lastName", .string)
                Attribute("age", .int16).range(0...300)
            }
        }
    }

    /// Fills an empty store with one batch insert (validation skipped, types checked).
    static func populate(_ store: PersistentStore, people: Int) throws {
        guard store.rowCounts["Person"] == 0 else { return }
        let firstNames = ["Ada", "Alan", "Barbara", "Charles", "Donald", "Edsger", "Frances", "Grace",
                          "John", "Ken", "Leslie", "Margaret", "Niklaus", "Radia", "Tim", "Tony"]
        let lastNames = ["Allen", "Babbage", "Dijkstra", "Hamilton", "Hoare", "Hopper", "Knuth", "Lamport",
                         "Liskov", "Lovelace", "McCarthy", "Perlman", "Ritchie", "Thompson", "Turing", "Wirth"]
        // The same seeded draws as ever, made first: the fill closure runs later, inside the
        // insert, and may only read (it is `@Sendable`).
        var random = SplitMix64(seed: 42)
        let draws = (0..<people).map { _ in
            (firstNames.randomElement(using: &random)!, lastNames.randomElement(using: &random)!,
             Int64.random(in: 0...300, using: &random))
        }
        let insert = BatchInsertRequest(entityName: "Person", count: people) { index, row in
            row["firstName"] = .string(draws[index].0)
            row["lastName"] = .string(draws[index].1)
            row["age"] = .int(draws[index].2)
        }
        let clock = ContinuousClock()
        let start = clock.now
        let result = try store.execute(insert)
        print("Inserted \(grouped(people)) people in \(ms(start.duration(to: clock.now))) (one batch insert, LSN \(result.lsn))")
    }

    /// The recipe: `background.perform { …IDs… mainContext.perform { …objects… } }`.
    static func start(_ store: PersistentStore) {
        let clock = ContinuousClock()
        let background = ObjectContext(store: store, concurrencyType: .privateQueue, name: "background")
        let mainContext = ObjectContext(store: store, concurrencyType: .mainQueue, name: "main")
        let started = clock.now

        background.schedule {
            // 1. On the private queue: fetch IDs only — cheap to make, safe to pass on.
            let ids: [ObjectID]
            do {
                var request = FetchRequest(entityName: "Person",
                                           predicate: try ObjectPredicate(format: "age >= 100 AND age <= 200"))
                request.resultType = .objectIDs
                request.fetchBatchSize = 20
                ids = try background.fetchObjectIDs(request)
            } catch {
                fail("\(error)", code: 1)
            }
            let fetched = started.duration(to: clock.now)
            print("Private-queue context: \(grouped(ids.count)) IDs of people aged 100 to 200 in \(ms(fetched)) "
                  + "(main thread: \(Thread.isMainThread ? "yes" : "no"))")

            mainContext.schedule {
                // 2. On the main queue: the IDs become this context's objects (faults until read).
                let handedOver = clock.now
                do {
                    let people = ids.map { mainContext.object(with: $0) }
                    let names = try people.prefix(10).map { person in
                        "\(try person.string("firstName") ?? "?") \(try person.string("lastName") ?? "?"), "
                            + "\(try person.int("age") ?? 0)"
                    }
                    // The main context can fetch too: the same question, asked on the main queue.
                    let check = try mainContext.count(for: FetchRequest(
                        entityName: "Person", predicate: try ObjectPredicate(format: "age BETWEEN {100, 200}")))
                    print("Main-queue context: \(grouped(people.count)) objects from those IDs, first 10 read, "
                          + "in \(ms(handedOver.duration(to: clock.now))) (main thread: \(Thread.isMainThread ? "yes" : "no"); "
                          + "its own count: \(grouped(check)))")
                    for name in names { print("  \(name)") }
                    try store.close()
                } catch {
                    fail("\(error)", code: 1)
                }
                print("Total \(ms(started.duration(to: clock.now)))")
                exit(0)
            }
        }
    }

    static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("people: \(message)\n".utf8))
        exit(code)
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var result = ""
        for (i, digit) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }

    static func ms(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) * 1_000 + Double(attoseconds) / 1e15
        return String(format: "%.1f ms", value)
    }
}

/// A small, seeded random number generator (SplitMix64), so every run creates the same people.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
