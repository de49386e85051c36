import Foundation
import StrataStorage

/// A set of object IDs that a batch request keeps as key ranges per entity and turns into a
/// `Set<ObjectID>` only when someone asks (an observer or a context merging the change).
///
/// A batch request over a million rows would otherwise hash a million `ObjectID`s under the
/// writer lock for a notification nobody may read.
struct ObjectIDSet: Sendable {
    private enum Storage: Sendable {
        case set(Set<ObjectID>)
        case ranges(LazyObjectIDs)
    }

    private var storage: Storage

    /// An empty set.
    init() { storage = .set([]) }

    /// The IDs in `set`.
    init(_ set: Set<ObjectID>) { storage = .set(set) }

    /// The IDs of `keys` in each named entity of the store `storeID`.
    init(storeID: UUID, ranges: [(entityName: String, keys: KeyRanges)]) {
        let nonEmpty = ranges.filter { !$0.keys.runs.isEmpty }
        storage = nonEmpty.isEmpty ? .set([]) : .ranges(LazyObjectIDs(storeID: storeID, ranges: nonEmpty))
    }

    /// The IDs as a set, made on first use and then shared by every copy.
    var set: Set<ObjectID> {
        switch storage {
        case .set(let set): return set
        case .ranges(let lazy): return lazy.set
        }
    }

    /// How many IDs there are, without making them.
    var count: Int {
        switch storage {
        case .set(let set): return set.count
        case .ranges(let lazy): return lazy.count
        }
    }
}

/// Key ranges and, once asked for, the `Set<ObjectID>` they stand for.
private final class LazyObjectIDs: Sendable {
    let storeID: UUID
    /// Distinct entities, each with its keys.
    let ranges: [(entityName: String, keys: KeyRanges)]
    let count: Int
    private let materialized = Locked<Set<ObjectID>?>(nil)

    init(storeID: UUID, ranges: [(entityName: String, keys: KeyRanges)]) {
        self.storeID = storeID
        self.ranges = ranges
        count = ranges.reduce(0) { $0 + $1.keys.count }
    }

    var set: Set<ObjectID> {
        if let done = materialized.withLock({ $0 }) { return done }
        var result = Set<ObjectID>(minimumCapacity: count)
        for (name, keys) in ranges {
            for run in keys.runs {
                for key in run.first..<(run.first + run.count) {
                    result.insert(ObjectID(storeID: storeID, entityName: name, primaryKey: key))
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
