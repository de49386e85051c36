internal import StrataStorage

extension FetchPlan {
    /// Orders `matches` as ``order(_:version:step:)`` orders items, telling `step` of the same
    /// work, and gathers the results' items; `nil` when `step` stopped it.
    ///
    /// `matches` is consumed: its lists, and the sort's arrays, are let go before the caller
    /// builds the results (``orderedIDs(_:entity:version:step:building:built:)`` for IDs).
    /// - Complexity: O(n log n).
    func ordered(_ matches: consuming FetchMatches, version: StoreVersion, step: (Int) -> Bool) -> [FetchItem]? {
        guard let order = orderPositions(matches, version: version, step: step) else { return nil }
        if case .scan = order.positions, order.kept == matches.indices { return Array(matches) }
        var items: [FetchItem] = []
        items.reserveCapacity(order.kept.count)
        return gather(order, step: step) { items.append(matches[$0]) } ? items : nil
    }

    /// The IDs of `matches` in the fetch's order, offset and limit applied: ordered as
    /// ``order(_:version:step:)`` orders items, telling `step` of the same work, the last pass
    /// gathering the results' keys; then `building()` is asked whether to go on, and the IDs
    /// are made from the keys, telling `built` of one unit a result, at most
    /// ``FetchMeter/maximumStep`` at once. `nil` when any of them said stop.
    ///
    /// Memory, the point of it. `matches` is consumed, and the sort's keys and scratch are let
    /// go before the gather. The keys are gathered into the upper half of the array that
    /// becomes the IDs (an ID takes 16 bytes, a key 8), and each ID is made in place from
    /// front to back: ID `i` covers bytes `16i..<16i + 16`, key `j` sits at `8n + 8j`, so an
    /// ID overwrites only keys already read. A sorted fetch of the IDs of all `n` rows of a
    /// bulk-loaded store holds the sort's 8 bytes of keys and 8 of positions (4, and 4 of
    /// scratch) a row, then the positions and the IDs' 16, then the IDs alone.
    ///
    /// - Complexity: O(n log n).
    func orderedIDs(_ matches: consuming FetchMatches, entity: ObjectIDEntity, version: StoreVersion,
                    step: (Int) -> Bool, building: () -> Bool, built: (Int) -> Bool) -> [ObjectID]? {
        guard let order = orderPositions(matches, version: version, step: step) else { return nil }
        let n = order.kept.count
        var finished = false
        let ids = [ObjectID](unsafeUninitializedCapacity: n) { buffer, initialized in
            guard let base = buffer.baseAddress else {
                finished = building()
                return
            }
            // An ObjectID is 16 bytes of plain data (an unmanaged reference and a key): its
            // storage holds the keys as raw bytes until the IDs are made over them.
            let raw = UnsafeMutableRawPointer(base)
            let keyBytes = MemoryLayout<Int64>.stride
            precondition(_isPOD(ObjectID.self) && MemoryLayout<ObjectID>.stride == 2 * keyBytes, "ObjectID is no longer 16 bytes of plain data")
            var gathered = 0
            let gatheredAll = gather(order, step: step) { position in
                raw.storeBytes(of: matches.primaryKey(at: position), toByteOffset: n * keyBytes + gathered * keyBytes, as: Int64.self)
                gathered += 1
            }
            guard gatheredAll, building() else { return }
            let stride = FetchMeter.maximumStep
            for start in Swift.stride(from: 0, to: n, by: stride) {
                let end = min(start + stride, n)
                for i in start..<end {
                    let key = raw.load(fromByteOffset: n * keyBytes + i * keyBytes, as: Int64.self)
                    (base + i).initialize(to: ObjectID(entity: entity, primaryKey: key))
                }
                initialized = end
                guard built(end - start) else { return }
            }
            finished = true
        }
        return finished ? ids : nil
    }
}
