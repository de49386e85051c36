internal import StrataStorage

extension FetchPlan {
    /// The IDs of `matches` in the fetch's order, offset and limit applied: ordered as
    /// ``order(_:version:step:)`` orders items, telling `step` of the same work, the last pass
    /// gathering the results' keys; then `building()` is asked whether to go on, and the IDs
    /// are made from the keys, telling `built` of one unit a result, at most
    /// ``FetchMeter/maximumStep`` at once. `nil` when any of them said stop.
    ///
    /// Memory, the point of it. `matches` is consumed. The keys are gathered into the upper
    /// half of the array that becomes the IDs (an ID takes 16 bytes, a key 8), and each ID is
    /// made in place from front to back: ID `i` covers bytes `16i..<16i + 16`, key `j` sits
    /// at `8n + 8j`, so an ID overwrites only keys already read. When the radix sort orders
    /// every match (``radixOrderedIDs(_:entity:version:step:building:built:)``) it runs in
    /// that array too, and a sorted fetch of the IDs of all `n` rows of a bulk-loaded store
    /// holds nothing but it (and the sort column the chunks keep decoded); otherwise the
    /// sort's own arrays go before the array is made, and the positions stay until the end.
    ///
    /// - Complexity: O(n log n).
    func orderedIDs(_ matches: consuming FetchMatches, entity: ObjectIDEntity, version: StoreVersion,
                    step: (Int) -> Bool, building: () -> Bool, built: (Int) -> Bool) -> [ObjectID]? {
        var numeric = true
        if request.fetchOffset == 0, request.fetchLimit == 0 || request.fetchLimit >= matches.count, matches.count > 1,
           sortsByRadix(matches, version: version) {
            switch radixOrderedIDs(matches, entity: entity, version: version, step: step, building: building, built: built) {
            case .ids(let ids): return ids
            case .stopped: return nil
            case .notNumeric: numeric = false   // a nil or NaN: the comparison sort, as `orderPositions` would go on
            }
        }
        guard let order = orderPositions(matches, version: version, numeric: numeric, step: step) else { return nil }
        let n = order.kept.count
        var finished = false
        let ids = [ObjectID](unsafeUninitializedCapacity: n) { buffer, initialized in
            guard let base = buffer.baseAddress else {
                finished = building()
                return
            }
            let raw = UnsafeMutableRawPointer(base)
            var gathered = 0
            let gatheredAll = gather(order, step: step) { position in
                raw.storeBytes(of: matches.primaryKey(at: position), toByteOffset: Self.keyOffset(gathered, of: n), as: Int64.self)
                gathered += 1
            }
            guard gatheredAll, building() else { return }
            finished = Self.makeIDs(in: base, count: n, entity: entity, initialized: &initialized, built: built)
        }
        return finished ? ids : nil
    }

    /// What ``radixOrderedIDs(_:entity:version:step:building:built:)`` came to.
    enum RadixIDs {
        /// The IDs in the fetch's order.
        case ids([ObjectID])
        /// A step said stop.
        case stopped
        /// A sort value is nil or NaN: the comparison sort orders them (the keys read so far
        /// were reported as work, as ``FetchPlan/orderPositions(_:version:numeric:step:)``
        /// reports them before it turns to that sort).
        case notNumeric
    }

    /// ``orderedIDs(_:entity:version:step:building:built:)`` for every match sorted by the
    /// radix sort, in the IDs' array: the sort keys in its upper half, the radix sort's two
    /// arrays of `UInt32` positions in its lower half; the gather writes each key over the
    /// sort key at its place (which the sort no longer needs), then the IDs are made over all.
    ///
    /// - Precondition: ``sortsByRadix(_:version:)``, more than one match, no offset, a limit
    ///   that keeps them all.
    func radixOrderedIDs(_ matches: FetchMatches, entity: ObjectIDEntity, version: StoreVersion,
                         step: (Int) -> Bool, building: () -> Bool, built: (Int) -> Bool) -> RadixIDs {
        let n = matches.count
        var outcome = RadixIDs.stopped
        let ids = [ObjectID](unsafeUninitializedCapacity: n) { buffer, initialized in
            let base = buffer.baseAddress!
            let raw = UnsafeMutableRawPointer(base)
            // Plain integers over the array's bytes until the IDs are made (an ObjectID is 16
            // bytes of plain data; `makeIDs` binds them back).
            let sortKeys = (raw + Self.keyOffset(0, of: n)).bindMemory(to: UInt64.self, capacity: n)
            let positions = raw.bindMemory(to: UInt32.self, capacity: 2 * n)
            switch readNumericKeys(matches, version: version, step: step, put: { sortKeys[$0] = $1 }) {
            case nil: outcome = .notNumeric
            case false?: return
            case true?: break
            }
            guard case .stopped = outcome else { return }
            guard let sorted = IndexRadixSort.sort(keys: UnsafeBufferPointer(start: sortKeys, count: n),
                                                   into: UnsafeMutableBufferPointer(start: positions, count: n),
                                                   scratch: UnsafeMutableBufferPointer(start: positions + n, count: n), step: step)
            else { return }
            // The gather, as `gather` reports it for every match kept.
            let stride = IndexMergeSort.stepLength
            for first in Swift.stride(from: 0, to: n, by: stride) {
                let end = min(first + stride, n)
                for i in first..<end { sortKeys[i] = UInt64(bitPattern: matches.primaryKey(at: Int(sorted[i]))) }
                guard step(end - first) else { return }
            }
            guard building() else { return }
            if Self.makeIDs(in: base, count: n, entity: entity, initialized: &initialized, built: built) { outcome = .ids([]) }
        }
        if case .ids = outcome { return .ids(ids) }
        return outcome
    }

    /// Where key `i` of `n` sits in the bytes of an array of `n` IDs: in its upper half.
    private static func keyOffset(_ i: Int, of n: Int) -> Int {
        precondition(_isPOD(ObjectID.self) && MemoryLayout<ObjectID>.stride == 2 * MemoryLayout<Int64>.stride,
                     "ObjectID is no longer 16 bytes of plain data")
        return (n + i) * MemoryLayout<Int64>.stride
    }

    /// Makes the `count` IDs of the keys in the upper half of the bytes at `base`
    /// (``keyOffset(_:of:)``) in place, front to back, telling `built` of each step of at
    /// most ``FetchMeter/maximumStep``; `false` when it said stop.
    private static func makeIDs(in base: UnsafeMutablePointer<ObjectID>, count n: Int, entity: ObjectIDEntity,
                                initialized: inout Int, built: (Int) -> Bool) -> Bool {
        let raw = UnsafeMutableRawPointer(base)
        let ids = raw.bindMemory(to: ObjectID.self, capacity: n)
        let stride = FetchMeter.maximumStep
        for start in Swift.stride(from: 0, to: n, by: stride) {
            let end = min(start + stride, n)
            for i in start..<end {
                // ID `i` covers keys `2i - n` and `2i + 1 - n` at most: ones already read.
                let key = raw.load(fromByteOffset: keyOffset(i, of: n), as: Int64.self)
                (ids + i).initialize(to: ObjectID(entity: entity, primaryKey: key))
            }
            initialized = end
            guard built(end - start) else { return false }
        }
        return true
    }
}
