extension PersistentStore {
    /// Builds every index of the newest saved state that is not built yet, on the calling
    /// thread, and returns when they all are.
    ///
    /// A store builds an index the first time something needs it, not at open. On a large
    /// table a fetch does not wait for that build: it scans as it would without the index
    /// while the index is built in the background
    /// (``Options/buildsIndexesInBackground``). Call this after an open when the next
    /// queries must use the indexes from the first, as a benchmark that compares with a
    /// database whose indexes are read from disk does; the saves after it keep the indexes
    /// up to date, as always. An index whose background build is under way is built again
    /// here rather than waited for: that build runs at the lowest priority, and waiting for it
    /// would make this call wait for whatever else keeps the cores busy.
    ///
    /// - Throws: ``StrataError/Code/corrupted`` when a chunk read for a build is damaged.
    /// - Complexity: O(n log n) in the rows of each table with an index not built yet.
    public func buildIndexes() throws(StrataError) {
        try checkingDamage {
            let version = currentVersion
            for table in version.tables {
                for lazy in table.indexes { _ = lazy.index(for: table) }
            }
        }
    }
}
