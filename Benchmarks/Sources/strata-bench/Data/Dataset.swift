import Foundation

/// The rows every workload uses, generated deterministically from a seed: the same seed and
/// scale give the same rows on every run, for both engines.
struct Dataset: Sendable {
    /// The seed the rows derive from (printed in the report so a run can be replayed).
    let seed: UInt64
    /// The number of to-do items and the number of people.
    let scale: Int
    /// `scale` to-do items with ids 1...scale.
    let todoItems: [TodoItem]
    /// `scale` people with ids 1...scale.
    let people: [Person]

    /// Midnight UTC, 1 January 2024: the first item's nominal creation time.
    static let epoch = Date(timeIntervalSince1970: 1_704_067_200)

    /// Generates both tables.
    ///
    /// - Complexity: O(scale).
    init(seed: UInt64, scale: Int) {
        self.seed = seed
        self.scale = scale
        todoItems = Self.makeTodoItems(seed: seed, count: scale)
        people = Self.makePeople(seed: seed, count: scale)
    }

    /// Generates `count` to-do items; each is created about 30 s after the previous one, with
    /// up to an hour of jitter, so `createdAt` order differs from `id` order.
    static func makeTodoItems(seed: UInt64, count: Int) -> [TodoItem] {
        var random = SplitMix64(seed: seed ^ 0x746F_646F)  // "todo"
        var items: [TodoItem] = []
        items.reserveCapacity(count)
        let base = Int64(epoch.timeIntervalSince1970 * 1000)
        for index in 0..<count {
            let verb = Vocabulary.verbs[random.next(below: Vocabulary.verbs.count)]
            let object = Vocabulary.objects[random.next(below: Vocabulary.objects.count)]
            let qualifier = Vocabulary.qualifiers[random.next(below: Vocabulary.qualifiers.count)]
            let name = qualifier.isEmpty ? "\(verb) \(object)" : "\(verb) \(object) \(qualifier)"
            let millis = base + Int64(index) * 30_000 + Int64(random.next(below: 3_600_000))
            items.append(TodoItem(
                id: Int64(index + 1),
                name: name,
                createdAt: Date(timeIntervalSince1970: Double(millis) / 1000),
                done: random.next(below: 10) < 3))
        }
        return items
    }

    /// Generates `count` people with ages uniform in 0..<1000.
    static func makePeople(seed: UInt64, count: Int) -> [Person] {
        var random = SplitMix64(seed: seed ^ 0x7065_6F70_6C65)  // "people"
        var people: [Person] = []
        people.reserveCapacity(count)
        for index in 0..<count {
            people.append(Person(
                id: Int64(index + 1),
                firstName: Vocabulary.firstNames[random.next(below: Vocabulary.firstNames.count)],
                lastName: Vocabulary.lastNames[random.next(below: Vocabulary.lastNames.count)],
                age: random.next(below: 1000)))
        }
        return people
    }
}
