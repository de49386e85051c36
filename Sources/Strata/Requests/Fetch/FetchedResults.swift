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
        /// Where the fetch found each result, when it says.
        let places: FetchPlaces?
        var batchIndex = -1
        var batch: [ManagedObject] = []

        init(context: ObjectContext, batchSize: Int, loadValues: Bool, layoutIndex: Int?, places: FetchPlaces?) {
            self.context = context
            self.batchSize = batchSize
            self.loadValues = loadValues
            self.layoutIndex = layoutIndex
            self.places = places
        }

        /// The object of the result at `position`, whose ID is `id`.
        func object(at position: Int, id: ObjectID) -> ManagedObject {
            let object = layoutIndex.map { context.object(layoutIndex: $0, id: id) } ?? context.object(with: id)
            if let places, object.committed == nil, object.faultHint == nil, object.lifecycle == .persisted {
                object.faultHint = places.hint(at: position)
            }
            if loadValues { try? object.fireFault() }
            return object
        }
    }

    /// The IDs of the results, in order.
    public let objectIDs: [ObjectID]
    private let batches: Batches
    private let all: [ManagedObject]?

    /// `layoutIndex`: the entity of every ID in `ids`, in `context`'s store (a fetch's IDs are
    /// all of its entity), so materializing skips the lookup by entity name. `places`: where
    /// the fetch found each result (in `layoutIndex`'s table), so its faults fire without a
    /// lookup while the store publishes nothing newer.
    init(context: ObjectContext, ids: [ObjectID], batchSize: Int, loadValues: Bool, layoutIndex: Int? = nil,
         places: FetchPlaces? = nil) {
        objectIDs = ids
        let batches = Batches(context: context, batchSize: batchSize, loadValues: loadValues, layoutIndex: layoutIndex,
                              places: places)
        self.batches = batches
        if batchSize == 0 {
            context.registry.reserveCapacity(context.registry.count + ids.count)
            all = ids.indices.map { batches.object(at: $0, id: ids[$0]) }
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
            b.batch = range.map { b.object(at: $0, id: objectIDs[$0]) }
            b.batchIndex = index
        }
        return b.batch[position - index * b.batchSize]
    }
}
