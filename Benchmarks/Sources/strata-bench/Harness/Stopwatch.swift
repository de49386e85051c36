/// Times work with the monotonic `ContinuousClock`.
enum Stopwatch {
    private static let clock = ContinuousClock()

    /// The current instant of the monotonic clock.
    static var now: ContinuousClock.Instant { clock.now }

    /// Seconds elapsed since `start`.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        (clock.now - start).seconds
    }

    /// Runs `body` and returns its result with the seconds it took.
    ///
    /// `body` is synchronous on purpose: inside it, GRDB's blocking `read` and `write` are
    /// chosen over their `async` overloads, which would add a hop to another queue.
    static func time<T>(_ body: () throws -> T) rethrows -> (result: T, seconds: Double) {
        let start = clock.now
        let result = try body()
        return (result, seconds(since: start))
    }

    /// Runs `body` and returns the seconds it took (its result is kept observable, so the
    /// optimizer cannot remove the work).
    static func seconds<T>(_ body: () throws -> T) rethrows -> Double {
        let (result, elapsed) = try time(body)
        blackHole(result)
        return elapsed
    }

    /// Runs the asynchronous `body` and returns the seconds it took, until its result is back.
    static func secondsAwaiting<T>(_ body: () async throws -> T) async rethrows -> Double {
        let start = clock.now
        let result = try await body()
        let elapsed = seconds(since: start)
        blackHole(result)
        return elapsed
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) * 1e-18
    }
}

/// Keeps `value` observable so the optimizer cannot drop the computation that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
