import Dispatch
import Foundation
import Synchronization

/// Work on a table's chunks spread over the processor's cores, with the results in chunk
/// order: how a scan with a compiled filter (count, IDs, fetch) decodes and compares many
/// chunks at once (``PersistentStore/Options/scansInParallel``).
///
/// Threads take the next chunk from a shared counter, so a thread that the system pauses
/// leaves its share to the others. Each result is written once, by the thread that computed
/// it, into its own slot; the caller reads them after every thread has finished.
enum ParallelChunks {
    /// How many threads a scan of `chunks` chunks uses: one unless parallel scans are on and
    /// each thread gets at least `minimumPerThread` chunks, and at most one per active core.
    static func threads(chunks: Int, parallel: Bool, minimumPerThread: Int) -> Int {
        guard parallel, chunks >= 2 * max(minimumPerThread, 1) else { return 1 }
        return min(ProcessInfo.processInfo.activeProcessorCount, chunks / max(minimumPerThread, 1))
    }

    /// `body(i)` for every `i` in `0..<count`, in that order in the result, computed on
    /// `threads` threads (on the caller's alone when `threads` is 1).
    ///
    /// - Precondition: `body` may run on several threads at once: it reads only what is
    ///   safe to read concurrently (a version's immutable tables, chunks, whose first decode
    ///   is serialized by their own lock) and writes nothing shared.
    static func map<T: Sendable>(_ count: Int, threads: Int, _ body: @Sendable (Int) -> T) -> [T] {
        guard threads > 1, count > 1 else { return (0..<count).map(body) }
        let next = Atomic<Int>(0)
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            let slots = Slots(base: buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: min(threads, count)) { _ in
                while true {
                    let i = next.add(1, ordering: .relaxed).oldValue
                    guard i < count else { return }
                    slots.initialize(i, to: body(i))
                }
            }
            // concurrentPerform returns once every iteration has, so every slot is written.
            initialized = count
        }
    }
}

/// The result buffer of ``ParallelChunks/map(_:threads:_:)``.
///
/// `@unchecked Sendable`: each slot is initialized exactly once, by the one thread that took
/// its index from the shared counter (an atomic increment hands every index out once), and
/// nothing reads a slot until `concurrentPerform` has returned, after every thread finished.
private struct Slots<T>: @unchecked Sendable {
    let base: UnsafeMutablePointer<T>

    func initialize(_ index: Int, to value: T) { (base + index).initialize(to: value) }
}
