import Foundation

/// The objects of a fetch, in order, as a random-access collection.
///
/// With a ``FetchRequest/fetchBatchSize`` the objects are materialized (and, when the
/// request does not want faults, loaded) one batch at a time as they are read, so a fetch of
/// a million rows holds a million IDs, not a million objects. Use it on the context's queue.
///
/// When the results are released (their last copy), the objects nothing else holds are
/// released with them, as they would be if the context held its objects weakly.
public struct FetchedResults: RandomAccessCollection {
    /// The results' IDs as the fetch made them: the IDs themselves, or the primary keys of
    /// one entity (a million `ObjectID`s are 16 MB; their keys are 8).
    enum IDs {
        case ids([ObjectID])
        case keys([Int64], entity: ObjectIDEntity)

        var count: Int {
            switch self {
            case .ids(let ids): return ids.count
            case .keys(let keys, _): return keys.count
            }
        }

        subscript(position: Int) -> ObjectID {
            switch self {
            case .ids(let ids): return ids[position]
            case .keys(let keys, let entity):
                return ObjectID(entity: entity, primaryKey: keys[position])
            }
        }

        var all: [ObjectID] {
            switch self {
            case .ids(let ids): return ids
            case .keys(let keys, let entity):
                return keys.map { ObjectID(entity: entity, primaryKey: $0) }
            }
        }
    }

    /// The materialized objects; a class so that releasing the last copy of the results
    /// can tell the context which objects to let go.
    final class Objects {
        let context: ObjectContext
        let batchSize: Int
        let loadValues: Bool
        /// The results' entity layout index in the context's store, when known.
        let layoutIndex: Int?
        /// Where the fetch found each result, when it says; dropped once every object is made
        /// (no batch size), as nothing reads it then (8 bytes a result).
        var places: FetchPlaces?
        /// The results' IDs as the fetch made them; dropped (`nil`) once every object is made
        /// and kept in ``all``, whose objects then give them (8 to 16 bytes a result).
        var ids: IDs?
        /// How many results there are.
        let count: Int
        /// Every object, when there is no batch size. No run-time exclusivity check: the
        /// results are used on their context's queue only, and no access to it overlaps
        /// another (reading an object from it checked, a tenth of reading a million results).
        @exclusivity(unchecked) var all: [ManagedObject] = []
        var batchIndex = -1
        var batch: [ManagedObject] = []
        /// The relationships to prefetch for each object made (``FetchRequest/relationshipKeyPathsForPrefetching``).
        var prefetch: [[PrefetchStep]] = []

        init(context: ObjectContext, count: Int, batchSize: Int, loadValues: Bool, layoutIndex: Int?, places: FetchPlaces?) {
            self.context = context
            self.count = count
            self.batchSize = batchSize
            self.loadValues = loadValues
            self.layoutIndex = layoutIndex
            self.places = places
        }

        /// Makes the objects of the results at `positions`, in order, calling `body` with
        /// each. What every object needs (the IDs, the places, the context) is read once for
        /// the run, not once per object: reading them from this class's properties for each
        /// object retained and released each of their buffers.
        @inline(__always)
        func makeObjects(_ positions: Range<Int>, _ body: (_ position: Int, _ object: ManagedObject) -> Void) {
            guard let ids, !positions.isEmpty else { return }
            let context = context
            let places = places
            context.registryWillHold(positions.count)
            switch (ids, layoutIndex) {
            case (.keys(let keys, _), let layoutIndex?):
                keys.withUnsafeBufferPointer { keys in
                    for position in positions {
                        let object = context.object(layoutIndex: layoutIndex, primaryKey: keys[position])
                        prepare(object, at: position, places: places, in: context)
                        body(position, object)
                    }
                }
            default:
                for position in positions {
                    let id = ids[position]
                    let object = layoutIndex.map { context.object(layoutIndex: $0, id: id) } ?? context.object(with: id)
                    prepare(object, at: position, places: places, in: context)
                    body(position, object)
                }
            }
        }

        /// Gives a new fault the place the fetch found its row, and loads it when the
        /// request wants values.
        @inline(__always)
        private func prepare(_ object: ManagedObject, at position: Int, places: FetchPlaces?, in context: ObjectContext) {
            if let places, object.holdsNoRow, object.lifecycle == .persisted, let hint = places.hint(at: position) {
                object.giveHint(hint, in: context)
            }
            if loadValues { try? object.fireFault() }
        }

        /// The objects of the results at `positions`, in order.
        func objects(_ positions: Range<Int>) -> [ManagedObject] {
            Array(unsafeUninitializedCapacity: positions.count) { buffer, made in
                guard let base = buffer.baseAddress else { return }
                makeObjects(positions) { position, object in
                    (base + made).initialize(to: object)
                    made += 1
                }
            }
        }

        /// Replaces the current batch, letting the context release the objects of the one
        /// before that nothing else holds.
        func replaceBatch(with objects: [ManagedObject], index: Int) {
            let previous = batch.map(\.registryKey)
            batch = objects
            batchIndex = index
            if !prefetch.isEmpty { context.prefetch(prefetch, of: objects) }
            releaseInContext(previous)
        }

        /// Drops what only making the objects needs (the IDs and the fetch's places) once
        /// ``all`` holds every object.
        func dropPositions() {
            ids = nil
            places = nil
        }

        /// Prefetches for `all`, once every object is made (once: the plan is then dropped).
        func prefetchAll() {
            guard !prefetch.isEmpty else { return }
            context.prefetch(prefetch, of: all)
            prefetch = []
        }

        deinit {
            // On the queue: each object is let go and, when only the registry still holds it,
            // dropped from the registry, in one pass (no list of keys is made, and each object
            // is touched once, while it is in the cache). No result holds another (a prefetch
            // keeps only objects of other entities: ``ObjectContext/prefetch(_:of:)``), so no
            // object's count falls after its turn.
            if context.isOnQueue {
                context.releaseUnused(taking: &all)
                context.releaseUnused(taking: &batch)
                return
            }
            var keys: [RegistryKey] = []
            keys.reserveCapacity(all.count + batch.count)
            for object in all { keys.append(object.registryKey) }
            for object in batch { keys.append(object.registryKey) }
            all = []
            batch = []
            releaseInContext(keys)
        }

        private func releaseInContext(_ keys: [RegistryKey]) {
            guard !keys.isEmpty else { return }
            let context = context
            if context.isOnQueue {
                context.releaseUnused(keys)
            } else {
                // Released on another thread: the registry is only touched on the queue.
                context.schedule { context.releaseUnused(keys) }
            }
        }
    }

    /// The IDs of the results, in order (made when first read).
    public var objectIDs: [ObjectID] { objects.ids?.all ?? objects.all.map(\.objectID) }
    private let objects: Objects

    /// `layoutIndex`: the entity of every ID in `ids`, in `context`'s store (a fetch's IDs are
    /// all of its entity), so materializing skips the lookup by entity name. `places`: where
    /// the fetch found each result (in `layoutIndex`'s table), so its faults fire without a
    /// lookup while the store publishes nothing newer.
    init(context: ObjectContext, ids: [ObjectID], batchSize: Int, loadValues: Bool, layoutIndex: Int? = nil,
         places: FetchPlaces? = nil) {
        self.init(context: context, ids: .ids(ids), batchSize: batchSize, loadValues: loadValues,
                  layoutIndex: layoutIndex, places: places)
    }

    /// The same, with the IDs as ``IDs``.
    /// With `materialize: false` and no batch size, the objects are left for
    /// ``materialize(upTo:)`` to make.
    init(context: ObjectContext, ids: IDs, batchSize: Int, loadValues: Bool, layoutIndex: Int?, places: FetchPlaces?,
         materialize: Bool = true, prefetch: [[PrefetchStep]] = []) {
        let objects = Objects(context: context, count: ids.count, batchSize: batchSize, loadValues: loadValues, layoutIndex: layoutIndex,
                              places: places)
        objects.prefetch = prefetch
        objects.ids = ids
        self.objects = objects
        if batchSize == 0 && materialize {
            objects.all = objects.objects(0..<ids.count)
            objects.dropPositions()
            objects.prefetchAll()
        }
    }

    /// For results made with `materialize: false` and no batch size: makes the objects up to
    /// position `end` (an asynchronous fetch makes them a slice at a time on the context's
    /// queue, checking for cancellation in between). They must all be made before use.
    func materialize(upTo end: Int) {
        let o = objects
        guard o.batchSize == 0, o.ids != nil else { return }
        o.all.reserveCapacity(o.count)
        o.makeObjects(o.all.count..<Swift.min(end, o.count)) { _, object in o.all.append(object) }
        if o.all.count == o.count {
            o.dropPositions()
            o.prefetchAll()
        }
    }

    /// For results made with `materialize: false`: makes every object, in order, calling
    /// `body` with each as it is made, and returns `true`; returns `false` (making nothing)
    /// when the results have a batch size or some objects are made already. The typed layer
    /// makes each object's model here, so that a model is allocated beside its object rather
    /// than all models after all objects: a model and its object are then read together and
    /// freed together.
    ///
    /// When nothing is to be prefetched the results do not keep the objects (the caller's
    /// models hold them): that saves a retain as each is made and a release of each, on an
    /// object long out of the cache, when the results go. Such results must not be read
    /// afterwards; the typed layer drops them at once.
    func materializeAll(_ body: (_ position: Int, _ object: ManagedObject) -> Void) -> Bool {
        let o = objects
        guard o.batchSize == 0, o.all.isEmpty, o.ids != nil else { return false }
        let count = o.count
        guard !o.prefetch.isEmpty else {
            o.makeObjects(0..<count, body)
            o.places = nil
            return true
        }
        o.all = Array(unsafeUninitializedCapacity: count) { buffer, made in
            guard let base = buffer.baseAddress else { return }
            o.makeObjects(0..<count) { position, object in
                (base + position).initialize(to: object)
                made = position + 1
                body(position, object)
            }
        }
        o.dropPositions()
        o.prefetchAll()
        return true
    }

    /// Every object, when they are all made already (no batch size): the typed layer walks
    /// this array rather than the collection, which retains each object it hands out.
    var allObjects: [ManagedObject]? {
        objects.batchSize == 0 && objects.all.count == endIndex ? objects.all : nil
    }

    /// Every object, when they are all made already, taken out of the results: the caller
    /// holds them from now on (the typed layer, whose models hold their objects), so
    /// releasing the results does not look each one up in the registry to see whether it
    /// can go — none could. The results must not be read afterwards.
    func takeAllObjects() -> [ManagedObject]? {
        guard let all = allObjects else { return nil }
        objects.all = []
        return all
    }

    /// Whether the objects that ``materialize(upTo:)`` makes are all made.
    var isMaterialized: Bool { objects.batchSize != 0 || objects.all.count == endIndex }

    /// The first index.
    public var startIndex: Int { 0 }
    /// One past the last index.
    public var endIndex: Int { objects.count }

    /// The object at `position`, materializing its batch when needed.
    public subscript(position: Int) -> ManagedObject {
        let o = objects
        if o.batchSize == 0 { return o.all[position] }
        let index = position / o.batchSize
        if index != o.batchIndex, o.ids != nil {
            let range = (index * o.batchSize)..<Swift.min((index + 1) * o.batchSize, o.count)
            o.replaceBatch(with: o.objects(range), index: index)
        }
        return o.batch[position - index * o.batchSize]
    }
}
