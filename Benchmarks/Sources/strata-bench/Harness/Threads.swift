import Foundation
import Synchronization

/// Runs `body(index)` on `count` dedicated threads at once and waits for all of them.
///
/// Dedicated `Thread`s rather than Dispatch or tasks, because the bodies block in `fsync` and
/// a cooperative pool sized to 2 cores would serialize them.
///
/// - Returns: each thread's result, in index order.
func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) throws -> [T] {
    let results = ThreadResults<T>(count: count)
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            results.set(index, Result { try body(index) })
            group.leave()
        }
        thread.start()
    }
    group.wait()
    return try results.all()
}

/// The results of ``onThreads(_:_:)``, filled in from several threads.
private final class ThreadResults<T: Sendable>: Sendable {
    private let slots: Mutex<[Result<T, any Error>?]>

    init(count: Int) {
        slots = Mutex(Array(repeating: nil, count: count))
    }

    func set(_ index: Int, _ result: Result<T, any Error>) {
        slots.withLock { $0[index] = result }
    }

    func all() throws -> [T] {
        try slots.withLock { slots in try slots.map { try $0!.get() } }
    }
}

/// A counter that several threads take numbers from, each number once.
final class TicketCounter: Sendable {
    private let value = Atomic<Int>(0)

    /// Returns the next number, starting at 0.
    func take() -> Int {
        value.add(1, ordering: .relaxed).oldValue
    }
}
