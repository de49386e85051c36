/// The engine's side of replication (the `StrataReplication` product): how much of the log a
/// replicator still needs, and a wait that holds a commit until the replicator has shipped it.
///
/// The storage layer knows nothing of PostgreSQL; a replicator registers here and the engine
/// consults it at two points only:
/// - a checkpoint's trim (``StorageEngine/completeCheckpoint(lsn:tables:metadata:fill:)``)
///   keeps every segment that holds a frame at or after ``retainedFrom``, so frames are never
///   deleted before they are shipped;
/// - a commit under ``Durability/always`` calls ``waitUntilShipped(_:)`` after its frame is
///   durable and published, which returns at once unless a synchronous replicator is registered.
package final class ReplicationHooks: Sendable {
    private struct State {
        var retainedFrom: UInt64?
        var shipWaiter: (@Sendable (UInt64) -> Void)?
    }

    private let state = Locked(State())

    package init() {}

    /// The first LSN a replicator has not shipped yet (`nil`: no replicator holds the log).
    package var retainedFrom: UInt64? { state.withLock { $0.retainedFrom } }

    /// Keeps the log from `lsn` on (`nil` releases the hold). A replicator raises it as
    /// PostgreSQL confirms frames.
    package func retainLog(from lsn: UInt64?) {
        state.withLock { $0.retainedFrom = lsn }
    }

    /// Registers (or, with `nil`, removes) the wait of a synchronous replicator: it returns
    /// once the frame with the given LSN is committed in PostgreSQL or the replicator stops.
    package func setShipWaiter(_ waiter: (@Sendable (UInt64) -> Void)?) {
        state.withLock { $0.shipWaiter = waiter }
    }

    /// Waits, when a synchronous replicator is registered, until it has shipped `lsn`.
    package func waitUntilShipped(_ lsn: UInt64) {
        let waiter = state.withLock { $0.shipWaiter }
        waiter?(lsn)
    }
}
