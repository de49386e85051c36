// Why the package locks with `Locked` (see scripts/tsan): four threads increment one counter
// under a lock, 100,000 times each, and the thread sanitizer says whether it saw a race.
// `scripts/tsan --probe` builds this with -sanitize=thread and runs each lock; a report for
// `mutex` (while `pthread` is clean) means Synchronization.Mutex is still invisible to TSan.
import Foundation
import Synchronization

final class MutexCounter: Sendable {
    let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// `@unchecked Sendable`: `count` is only touched between `pthread_mutex_lock` and unlock.
final class PthreadCounter: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_mutex_t> = {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        return lock
    }()
    private var count = 0
    func increment() { pthread_mutex_lock(lock); count += 1; pthread_mutex_unlock(lock) }
    var value: Int { pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }; return count }
}

let kind = CommandLine.arguments.dropFirst().first ?? "mutex"
let mutex = MutexCounter(), pthread = PthreadCounter()
let usePthread = kind == "pthread"
let done = DispatchGroup()
for _ in 0..<4 {
    done.enter()
    Thread { for _ in 0..<100_000 { if usePthread { pthread.increment() } else { mutex.increment() } }; done.leave() }.start()
}
done.wait()
print("\(kind): \(usePthread ? pthread.value : mutex.value) increments")
