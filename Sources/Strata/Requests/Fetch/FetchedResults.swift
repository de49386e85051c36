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
        var batchIndex = -1
        var batch: [ManagedObject] = []

        init(context: ObjectContext, batchSize: Int, loadValues: Bool) {
            self.context = context
            self.batchSize = batchSize
            self.loadValues = loadValues
        }
    }

    /// The IDs of the results, in order.
    public let objectIDs: [ObjectID]
    private let batches: Batches
    private let all: [ManagedObject]?

    init(context: ObjectContext, ids: [ObjectID], batchSize: Int, loadValues: Bool) {
        objectIDs = ids
        batches = Batches(context: context, batchSize: batchSize, loadValues: loadValues)
        if batchSize == 0 {
            all = ids.map { id in
                let object = context.object(with: id)
                if loadValues { try? object.fireFault() }
                return object
            }
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
            b.batch = objectIDs[range].map { id in
                let object = b.context.object(with: id)
                if b.loadValues { try? object.fireFault() }
                return object
            }
            b.batchIndex = index
        }
        return b.batch[position - index * b.batchSize]
    }
}
