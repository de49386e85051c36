#if STRATA_TSAN
#if canImport(Glibc)
package import Glibc
#elseif canImport(Darwin)
package import Darwin
#endif
#else
package import Synchronization  // `package`: the inlinable `withLock` below names `Mutex`
#endif

/// A value that is only read or changed while a lock is held: the package's one lock type.
///
/// In every ordinary build this is `Synchronization.Mutex`, nothing more. The thread-sanitizer
/// build (`scripts/tsan`, which passes `-DSTRATA_TSAN`) swaps in a `pthread_mutex_t`, because
/// on Linux `Mutex` hands a contended lock over through priority-inheritance futexes inside
/// the runtime (`FUTEX_LOCK_PI`), which the sanitizer cannot see: it then reports accesses
/// made under the same lock as data races, and a sanitizer run that has to ignore its reports
/// proves nothing. The sanitizer intercepts `pthread_mutex_lock`, and the critical sections
/// and the state they guard are the same in both builds, so it still checks every access the
/// package makes to guarded state.
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
#if STRATA_TSAN
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let value: UnsafeMutablePointer<Value>

    @inlinable
    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        let status = pthread_mutex_init(mutex, nil)
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
#else
    @usableFromInline let mutex: Mutex<Value>

    @inlinable
    package init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Calls `body` with the value while the lock is held.
    @inlinable
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock(body)
    }
#endif
}

#if STRATA_TSAN
/// `@unchecked Sendable`: the two pointers never change after `init`, and the value they lead
/// to is only reached inside `withLock`, between `pthread_mutex_lock` and `pthread_mutex_unlock`.
extension Locked: @unchecked Sendable {}
#else
extension Locked: Sendable {}
#endif
