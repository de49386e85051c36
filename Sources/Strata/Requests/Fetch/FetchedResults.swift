/// The objects of a fetch, in order, as a random-access collection.
///
/// With a ``FetchRequest/fetchBatchSize`` the objects are materialized (and, when the
/// request does not want faults, loaded) one batch at a time as they are read, so a fetch of
/// a million rows holds a million IDs, not a million objects. Use it on the context's queue.
public struct FetchedResults: RandomAccessCollection {
    final class Batches {
        let context: ObjectContext
        let batchSize: Int
        let loadValues: Bool
        /// The results' entity layout index in the context's store, when known.
        let layoutIndex: Int?
        var batchIndex = -1
        var batch: [ManagedObject] = []

        init(context: ObjectContext, batchSize: Int, loadValues: Bool, layoutIndex: Int?) {
            self.context = context
            self.batchSize = batchSize
            self.loadValues = loadValues
            self.layoutIndex = layoutIndex
        }

        func object(with id: ObjectID) -> ManagedObject {
            let object = layoutIndex.map { context.object(layoutIndex: $0, id: id) } ?? context.object(with: id)
            if loadValues { try? object.fireFault() }
            return object
        }
    }

    /// The IDs of the results, in order.
    public let objectIDs: [ObjectID]
    private let batches: Batches
    private let all: [ManagedObject]?

    /// `layoutIndex`: the entity of every ID in `ids`, in `context`'s store (a fetch's IDs are
    /// all of its entity), so materializing skips the lookup by entity name.
    init(context: ObjectContext, ids: [ObjectID], batchSize: Int, loadValues: Bool, layoutIndex: Int? = nil) {
        objectIDs = ids
        let batches = Batches(context: context, batchSize: batchSize, loadValues: loadValues, layoutIndex: layoutIndex)
        self.batches = batches
        if batchSize == 0 {
            context.registry.reserveCapacity(context.registry.count + ids.count)
            all = ids.map(batches.object(with:))
        } else {
            all = nil
        }
    }

    /// The first index.
    public var startIndex: Int { 0 }
    /// One past the last index.
    public var endIndex: Int { objectIDs.count }

    /// The object at `position`, materializing its batch when needed.
    public subscript(position: Int) -> ManagedObject {
        if let all { return all[position] }
        let b = batches
        let index = position / b.batchSize
        if index != b.batchIndex {
            let range = (index * b.batchSize)..<Swift.min((index + 1) * b.batchSize, objectIDs.count)
            b.batch = objectIDs[range].map(b.object(with:))
            b.batchIndex = index
        }
        return b.batch[position - index * b.batchSize]
    }
}
