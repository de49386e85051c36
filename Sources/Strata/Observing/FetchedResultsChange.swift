/// How a ``FetchedResultsController``'s results changed with one or more committed
/// transactions: what to apply to the previous results to get the new ones.
///
/// ``objects`` is a `CollectionDifference` of the flat list of result IDs (removals at
/// offsets of the previous results, insertions at offsets of the new ones; a moved object is
/// a removal and an insertion associated with each other), so
/// `previousIDs.applying(change.objects)` gives ``FetchedResultsController/fetchedObjectIDs``.
/// ``sections`` does the same for the section names.
///
/// For example, updating a table view:
/// ```swift
/// for await change in controller.changes {
///     table.delete(rows: change.removedOffsets)
///     table.insert(rows: change.insertedOffsets)
///     table.reload(rows: change.updatedOffsets)
/// }
/// ```
///
/// A batch update of a million rows arrives as one change.
public struct FetchedResultsChange: Sendable, Hashable {
    /// The LSN of the newest transaction the new results include.
    public var lsn: UInt64
    /// The changes to the flat list of result IDs.
    public var objects: CollectionDifference<ObjectID>
    /// Offsets, in the new results, of objects that were in the results before and after
    /// and whose stored values changed (a moved object is also listed), ascending.
    public var updatedOffsets: [Int]
    /// The changes to the list of section names (empty without sections).
    public var sections: CollectionDifference<String>

    /// Offsets in the previous results of objects removed (moved ones included), ascending.
    public var removedOffsets: [Int] {
        objects.removals.compactMap { if case .remove(let offset, _, _) = $0 { offset } else { nil } }.sorted()
    }
    /// Offsets in the new results of objects inserted (moved ones included), ascending.
    public var insertedOffsets: [Int] {
        objects.insertions.compactMap { if case .insert(let offset, _, _) = $0 { offset } else { nil } }.sorted()
    }
    /// Objects that moved: their offset in the previous results and in the new ones.
    public var moves: [(from: Int, to: Int)] {
        objects.insertions.compactMap { change -> (Int, Int)? in
            guard case .insert(let to, _, let from?) = change else { return nil }
            return (from, to)
        }.sorted { $0.1 < $1.1 }
    }

    /// Whether the change changes nothing a user can see.
    public var isEmpty: Bool { objects.isEmpty && updatedOffsets.isEmpty && sections.isEmpty }
}

/// One section of a ``FetchedResultsController``'s results: a run of objects with the same
/// value of the section key (Core Data's `NSFetchedResultsSectionInfo`).
public struct FetchedResultsSection: Sendable, Hashable {
    /// The section key's value as text (`""` for nil).
    public var name: String
    /// The section's objects' offsets in ``FetchedResultsController/fetchedObjectIDs``.
    public var offsets: Range<Int>
    /// How many objects the section holds.
    public var numberOfObjects: Int { offsets.count }
}

/// The sections as runs of names: what the controller keeps up to date as objects come and
/// go, without reading every result again.
struct SectionRuns: Equatable {
    var runs: [(name: String, count: Int)] = []

    static func == (a: SectionRuns, b: SectionRuns) -> Bool {
        a.runs.count == b.runs.count && zip(a.runs, b.runs).allSatisfy { $0.name == $1.name && $0.count == $1.count }
    }

    var names: [String] { runs.map(\.name) }

    /// No sections.
    init() {}

    /// The runs of `names`, in order.
    init(_ names: some Sequence<String>) {
        for name in names {
            if runs.last?.name == name { runs[runs.count - 1].count += 1 } else { runs.append((name, 1)) }
        }
    }

    /// The run holding `offset`, and the offset of its first object.
    private func run(at offset: Int) -> (index: Int, start: Int)? {
        var start = 0
        for (index, run) in runs.enumerated() {
            if offset < start + run.count { return (index, start) }
            start += run.count
        }
        return nil
    }

    /// Removes the object at `offset`; an emptied run goes, and equal neighbours join.
    mutating func remove(at offset: Int) {
        guard let (index, _) = run(at: offset) else { return }
        runs[index].count -= 1
        guard runs[index].count == 0 else { return }
        runs.remove(at: index)
        if index > 0, index < runs.count, runs[index - 1].name == runs[index].name {
            runs[index - 1].count += runs[index].count
            runs.remove(at: index)
        }
    }

    /// Inserts an object of section `name` at `offset`: it joins the run before or after
    /// it when that has its name, otherwise it starts a run (splitting the one it lands in).
    mutating func insert(_ name: String, at offset: Int) {
        guard let (index, start) = run(at: offset) else {
            if runs.last?.name == name { runs[runs.count - 1].count += 1 } else { runs.append((name, 1)) }
            return
        }
        if offset == start {
            if runs[index].name == name { runs[index].count += 1; return }
            if index > 0, runs[index - 1].name == name { runs[index - 1].count += 1; return }
            runs.insert((name, 1), at: index)
            return
        }
        if runs[index].name == name { runs[index].count += 1; return }
        let before = offset - start, after = runs[index].count - before
        runs[index].count = before
        runs.insert(contentsOf: [(name, 1), (runs[index].name, after)], at: index + 1)
    }

    /// The sections with their offsets.
    var sections: [FetchedResultsSection] {
        var start = 0
        return runs.map { run in
            defer { start += run.count }
            return FetchedResultsSection(name: run.name, offsets: start..<(start + run.count))
        }
    }
}
