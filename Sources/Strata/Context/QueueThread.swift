import Foundation
import Synchronization

/// Which thread is running a block of one context's queue, when that block was started by
/// the context itself (``ObjectContext/performAndWait(_:)``, ``ObjectContext/perform(_:)``,
/// ``ObjectContext/schedule(_:)``, a model actor's executor): a check that a thread is on
/// the queue that costs a load and a compare, where `DispatchQueue.getSpecific` costs a walk
/// of the queue hierarchy (about 200 instructions) — too much for a check made once per model
/// released (see `ModelBacking.modelDidDeinit()`).
///
/// It can only say yes when that is true: the thread is written when a block starts and the
/// previous value is put back when it ends, so a thread reads its own identifier only while
/// it is inside such a block (another thread's writes never hold it, and a thread's own later
/// write of the previous value is seen by itself). A block the context did not start (code
/// on the main thread for a main-queue context) reads no, and the caller asks the queue.
final class QueueThread: Sendable {
    /// The running thread's `pthread_self()`, or 0.
    private let current = Atomic<UInt>(0)

    /// Runs `body`, on the context's queue, marked as running on this thread.
    func run<T>(_ body: () throws -> T) rethrows -> T {
        let outer = current.exchange(Self.thisThread, ordering: .relaxed)
        defer { current.store(outer, ordering: .relaxed) }
        return try body()
    }

    /// Whether the caller is inside a block that ``run(_:)`` runs.
    var isCurrent: Bool { current.load(ordering: .relaxed) == Self.thisThread }

    private static var thisThread: UInt { UInt(bitPattern: Int(bitPattern: pthread_self())) }
}
