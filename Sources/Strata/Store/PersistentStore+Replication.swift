package import StrataStorage

extension PersistentStore {
    /// The storage engine, for the replicator (`StrataReplication`, same package): it reads
    /// the log's directory and registers its hooks (``StrataStorage/ReplicationHooks``).
    package var storageEngine: StorageEngine { engine }

    /// Holds a commit under `.always` durability until a synchronous replicator has shipped
    /// its frame (returns at once without one). Called after the commit is durable, published
    /// and notified, so the local store is never left between two states while it waits.
    func waitForSynchronousReplication(_ lsn: UInt64) {
        guard engine.options.durability == .always else { return }
        engine.replication.waitUntilShipped(lsn)
    }
}
