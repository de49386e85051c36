import Foundation
import StrataModels

/// The background-fetch recipe from the Core Data tutorials, typed: a model actor (a
/// private-queue context) finds the IDs of the people aged 100 to 200, and the main
/// context, on the main actor, turns those IDs into its own models. Models never cross
/// actors — the compiler says so; IDs do.
///
/// No run loop is needed: `store.mainContext` is bound to `@MainActor`, and `main` is an
/// `async` function on the main actor.
@main
struct PeopleApp {
    static let usage = """
        usage: people [--store DIR] [--people N]

        Creates a Person store with N people (default 100,000) when it is empty, then fetches
        the IDs of the people aged 100 to 200 in a model actor and turns them into models on
        the main context.
        """

    static func main() async {
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
            let store = try PersistentStore.open(at: path, schema: Schema(Person.self))
            print("Opened \(path) (LSN \(store.lastLSN))")
            try populate(store, people: people)
            try await run(store)
            try store.close()
        } catch {
            fail("\(error)", code: 1)
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
        let insert = BatchInsertRequest(for: Person.self, count: people) { index in
            Person(firstName: draws[index].0, lastName: draws[index].1, age: Int16(draws[index].2))
        }
        let clock = ContinuousClock()
        let start = clock.now
        let result = try store.execute(insert)
        print("Inserted \(grouped(people)) people in \(ms(start.duration(to: clock.now))) (one batch insert, LSN \(result.lsn))")
    }

    /// The recipe: IDs from the model actor, models on the main actor.
    @MainActor static func run(_ store: PersistentStore) async throws {
        let clock = ContinuousClock()
        let started = clock.now
        // 1. In the model actor, on its private queue: IDs only — cheap to make, safe to pass on.
        let ids = try await PeopleFinder(store: store).ids(agedFrom: 100, to: 200)
        print("Model actor: \(grouped(ids.count)) IDs of people aged 100 to 200 in \(ms(started.duration(to: clock.now)))")

        // 2. On the main actor: the IDs become the main context's models (faults until read).
        let handedOver = clock.now
        let context = store.mainContext
        let people = try ids.compactMap { try context.existingModel(for: $0, as: Person.self) }
        let names = people.prefix(10).map { "\($0.firstName) \($0.lastName), \($0.age)" }
        // The main context can fetch too: the same question, asked on the main actor.
        let check = try context.fetchCount(FetchDescriptor<Person>(predicate: #Predicate { $0.age >= 100 && $0.age <= 200 }))
        print("Main context: \(grouped(people.count)) models from those IDs, first 10 read, "
              + "in \(ms(handedOver.duration(to: clock.now))) (its own count: \(grouped(check)))")
        for name in names { print("  \(name)") }
        print("Total \(ms(started.duration(to: clock.now)))")
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
