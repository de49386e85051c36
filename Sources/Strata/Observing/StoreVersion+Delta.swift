/// The rows of one entity that changed between two versions of a store.
struct TableDelta {
    /// Keys of rows inserted or updated after the older version (present in the newer one).
    var changed: [Int64] = []
    /// Keys of rows present in the older version and gone from the newer one.
    var deleted: [Int64] = []

    var isEmpty: Bool { changed.isEmpty && deleted.isEmpty }
}

extension StoreVersion {
    /// The rows of the entity at `index` that changed from `older` to this version, found
    /// from the chunks the two versions do not share (a commit copies only the chunks it
    /// touches, and stamps each row it writes with its LSN), or `nil` when those chunks hold
    /// more than `limit` rows.
    ///
    /// It does not depend on which transactions were announced, nor in which order: any
    /// two versions compare.
    /// - Complexity: O(chunks) plus O(rows of the chunks not shared · log rows).
    func delta(ofEntity index: Int, since older: StoreVersion, limit: Int) -> TableDelta? {
        let new = tables[index], old = older.tables[index]
        var oldOnly = Set<ObjectIdentifier>(minimumCapacity: old.chunks.count)
        for chunk in old.chunks { oldOnly.insert(ObjectIdentifier(chunk)) }
        var newChunks: [TableChunk] = []
        var rows = 0
        for chunk in new.chunks where oldOnly.remove(ObjectIdentifier(chunk)) == nil {
            newChunks.append(chunk)
            rows += chunk.count
            if rows > limit { return nil }
        }
        var delta = TableDelta()
        if !oldOnly.isEmpty {
            for chunk in old.chunks where oldOnly.contains(ObjectIdentifier(chunk)) {
                rows += chunk.count
                if rows > limit { return nil }
                for key in chunk.primaryKeys where new.locate(key) == nil { delta.deleted.append(key) }
            }
        }
        for chunk in newChunks {
            let keys = chunk.primaryKeys, versions = chunk.versions
            for row in keys.indices where UInt64(bitPattern: versions[row]) > older.lsn {
                delta.changed.append(keys[row])
            }
        }
        return delta
    }
}
