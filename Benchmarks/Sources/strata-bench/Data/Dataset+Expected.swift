/// What the workloads' results must be, worked out from the generated rows alone, so each
/// side's figure is checked against the data rather than against the other engine's answer.
///
/// Computed outside the timed part of a run.
extension Dataset {
    /// The ids of the people with `age BETWEEN 100 AND 200` (inclusive), in id order: what
    /// both engines' predicate fetches must return.
    ///
    /// - Complexity: O(scale).
    var idsOfPeopleAgedHundredToTwoHundred: [Int64] {
        people.filter { (100...200).contains($0.age) }.map(\.id)
    }

    /// The to-do ids in `createdAt` order, ties broken by id (Strata's order for equal keys):
    /// what the sorted fetch must return.
    ///
    /// - Complexity: O(scale log scale).
    var todoIDsByCreationDate: [Int64] {
        todoItems.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map(\.id)
    }

    /// The UTF-8 length of every to-do item's name, added up: what reading `name` from every
    /// item must total.
    ///
    /// - Complexity: O(scale).
    var todoNameBytes: Int {
        todoItems.reduce(0) { $0 &+ $1.name.utf8.count }
    }

    /// The number of to-do items with an even id: the rows the batch delete removes.
    var evenTodoCount: Int {
        todoItems.lazy.filter { $0.id % 2 == 0 }.count
    }
}
