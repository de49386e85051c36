#if canImport(Glibc)
package import Glibc
#elseif canImport(Darwin)
package import Darwin
#endif

/// A value that is only read or changed while a lock is held: the package's one lock type.
///
/// It is a `pthread_mutex_t` next to the value, in every build: an adaptive one, which spins
/// briefly before it sleeps, as `Mutex` does (a plain one sleeps at once, and 8 contexts
/// saving at once managed about 13,000 saves/s with it against about 16,700/s adaptive). It
/// is not `Mutex`, for two measured reasons:
///
/// - **Cost.** `Synchronization.Mutex<Value>` wrapped in a generic type of this module and
///   used from another module calls `Mutex`'s generic metadata accessor on every `withLock`
///   (its value lives in a raw-layout cell whose offset comes from the metadata): about 450
///   instructions a call against about 60 for this type, paid on every fault fired, every
///   object inserted (its primary key) and every commit. A callgrind profile of
///   `strata-profile sorted-fetch` showed it as `Mutex`'s metadata accessor (`MutexVMa`).
/// - **The thread sanitizer.** On Linux a contended `Mutex` is handed over through
///   priority-inheritance futexes inside the runtime (`FUTEX_LOCK_PI`), which the sanitizer
///   cannot see: it then reports accesses made under the same lock as data races
///   (`scripts/tsan --probe` shows it). It intercepts `pthread_mutex_lock`, so with this type
///   every report is a real race.
///
/// For example:
///
/// ```swift
/// let cache = Locked<[String: Int]>([:])
/// let hit = cache.withLock { $0["key"] }
/// ```
///
/// Use it wherever the package would use `Mutex` (`scripts/tsan` refuses a bare `Mutex`).
package struct Locked<Value>: ~Copyable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let value: UnsafeMutablePointer<Value>

    @inlinable
    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        let status = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Calls `body` with the value while the lock is held.
    @inlinable
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}

/// `@unchecked Sendable`: the two pointers never change after `init`, and the value they lead
/// to is only reached inside `withLock`, between `pthread_mutex_lock` and `pthread_mutex_unlock`.
extension Locked: @unchecked Sendable {}
