import Dispatch
import Logging
import NIOCore
import PostgresNIO

/// One connection to PostgreSQL, used from one thread at a time with blocking calls.
///
/// The replicator ships from a dedicated thread and restore is a plain function, so neither
/// touches Swift's cooperative thread pool: a save that waits for a synchronous replicator
/// (itself possibly on that pool) can never starve the work it waits for. The calls block on
/// PostgresNIO's futures, which its event loop threads complete. It is `Sendable` (every field
/// is an immutable, sendable value) so that ``Replicator/start()`` can hand it to its thread.
final class PostgresSession: Sendable {
    let location: PostgresLocation
    /// How long a statement may go unanswered before the connection is dropped.
    let timeout: Duration
    private let connection: PostgresConnection
    private let logger: Logger

    /// The default ``timeout``: long enough for a large snapshot on a slow link, short enough
    /// that a cut link does not hang a replicator until TCP gives up (about 15 minutes).
    static let defaultTimeout: Duration = .seconds(30)

    private init(location: PostgresLocation, connection: PostgresConnection, logger: Logger, timeout: Duration) {
        self.location = location
        self.connection = connection
        self.logger = logger
        self.timeout = timeout
    }

    /// Connects to `location`, giving up after `timeout`.
    ///
    /// - Throws: ``ReplicationError`` `unreachable`, with the server's reason.
    static func connect(_ location: PostgresLocation, timeout: Duration = defaultTimeout) throws(ReplicationError) -> PostgresSession {
        var logger = Logger(label: "strata.replication")
        logger.logLevel = .critical
        var configuration = location.configuration
        configuration.options.connectTimeout = .nanoseconds(Int64(min(Double(Int64.max / 2), seconds(timeout) * 1e9)))
        do {
            let connection = try PostgresConnection.connect(on: PostgresConnection.defaultEventLoopGroup.any(),
                                                            configuration: configuration, id: 1,
                                                            logger: logger).wait()
            return PostgresSession(location: location, connection: connection, logger: logger, timeout: timeout)
        } catch {
            throw ReplicationError(.unreachable, "Could not connect to PostgreSQL at \(location): \(Self.reason(error)). Check that the server runs, that the URL's host, port, user and database are right, and that pg_hba.conf lets this host in.", cause: SendableCause(error))
        }
    }

    /// Whether the connection has closed (the server went away, or ``close()``).
    var isClosed: Bool { connection.isClosed }

    /// Runs `query` and returns every row.
    ///
    /// - Parameter what: what the statement does, for the error message.
    /// - Throws: ``ReplicationError`` `server` (the statement failed) or `unreachable` (the
    ///   connection is gone).
    @discardableResult
    func run(_ query: PostgresQuery, _ what: String) throws(ReplicationError) -> [PostgresRow] {
        let answer = connection.query(query, logger: logger)
        try awaitAnswer(answer, what)
        do {
            return try answer.wait().rows
        } catch {
            let code: ReplicationError.Code = connection.isClosed ? .unreachable : .server
            throw ReplicationError(code, "\(what) failed on \(location): \(Self.reason(error)).", cause: SendableCause(error))
        }
    }

    /// Runs `body` inside `BEGIN` … `COMMIT`; rolls back when it throws.
    func transaction<T>(_ what: String, _ body: () throws(ReplicationError) -> T) throws(ReplicationError) -> T {
        try run("BEGIN", what)
        do throws(ReplicationError) {
            let value = try body()
            try run("COMMIT", what)
            return value
        } catch {
            if !connection.isClosed { _ = try? run("ROLLBACK", what) }
            throw error
        }
    }

    /// Calls `wake` whenever a notification arrives on `channel` (on PostgresNIO's event loop
    /// thread: `wake` must only signal), and sends `LISTEN` for it.
    ///
    /// - Throws: ``ReplicationError`` `server` or `unreachable`.
    func listen(_ channel: String, wake: @escaping @Sendable () -> Void) throws(ReplicationError) {
        connection.addListener(channel: channel) { _, _ in wake() }
        try run(PostgresQuery(unsafeSQL: "LISTEN \"\(channel)\""), "Listening for new frames on \(channel)")
    }

    /// Waits up to ``timeout`` for `answer`; past it, drops the connection (so that the
    /// statement fails and the caller connects again) and throws `unreachable`.
    private func awaitAnswer<T>(_ answer: EventLoopFuture<T>, _ what: String) throws(ReplicationError) {
        let answered = DispatchSemaphore(value: 0)
        answer.whenComplete { _ in answered.signal() }
        guard answered.wait(timeout: .now() + Self.seconds(timeout)) == .timedOut else { return }
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in }
        throw ReplicationError(.unreachable, "\(what) got no answer from \(location) within \(timeout): the network or the server is down. The connection was dropped; the next attempt connects again.")
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Closes the connection; errors are ignored (it is going away either way).
    func close() {
        let closed: EventLoopFuture<Void> = connection.close()
        try? awaitAnswer(closed, "Closing the connection")
    }

    /// The server's own message for a PostgresNIO error, when there is one.
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                return message + (error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")
            }
            return "\(error.code)"
        }
        return "\(error)"
    }
}

/// A PostgresNIO error kept as a ``ReplicationError``'s cause.
///
/// `@unchecked Sendable`: PostgresNIO's errors (`PSQLError` is itself `@unchecked Sendable`)
/// and NIO's channel errors are immutable values once thrown; the cause is only read (printed).
struct SendableCause: Error, @unchecked Sendable, CustomStringConvertible {
    let error: any Error
    init(_ error: any Error) { self.error = error }
    var description: String { PostgresSession.reason(error) }
}
