/// The error type of replication: shipping a store's log to PostgreSQL and restoring from it.
///
/// Messages name the store ID, the LSN and the server (never its password) when they are
/// known, and say what to do. They never contain stored user data.
public struct ReplicationError: Error, Sendable, CustomStringConvertible {
    /// A kind of replication failure. New codes can be added without breaking `catch` clauses.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, such as `"unreachable"`.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// Lets a `catch` clause match on a code: `catch ReplicationError.Code.gap { … }`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ReplicationError)?.code == code
        }

        /// The connection URL is not a `postgres://` URL this library can use.
        public static let invalidURL = Code(rawValue: "invalidURL")
        /// PostgreSQL could not be reached, refused the login, or dropped the connection.
        public static let unreachable = Code(rawValue: "unreachable")
        /// A statement failed on the server.
        public static let server = Code(rawValue: "server")
        /// The replication tables were made by a newer, incompatible schema version.
        public static let unsupportedSchema = Code(rawValue: "unsupportedSchema")
        /// The frames in PostgreSQL do not continue the local log (another store, or a
        /// store restored from an older state, under the same store ID).
        public static let diverged = Code(rawValue: "diverged")
        /// Frames are missing between a snapshot and the target LSN, so the state cannot be built.
        public static let gap = Code(rawValue: "gap")
        /// Nothing was shipped for the store ID (or nothing at or before the target LSN).
        public static let notFound = Code(rawValue: "notFound")
        /// A frame or snapshot read back from PostgreSQL fails its checksum.
        public static let corrupted = Code(rawValue: "corrupted")
        /// The local store could not be read, or the restored store could not be written.
        public static let storage = Code(rawValue: "storage")
        /// The replicator was stopped (or never started) while a caller waited for it.
        public static let stopped = Code(rawValue: "stopped")
        /// A replica of the store was promoted: this store is no longer its primary, and
        /// PostgreSQL refuses its frames (docs/REPLICATION.md, "Promotion and fencing").
        public static let fenced = Code(rawValue: "fenced")
        /// An argument is outside what the operation accepts.
        public static let invalidArgument = Code(rawValue: "invalidArgument")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What failed and what to do about it.
    public var message: String
    /// The underlying error: a PostgresNIO error, a ``StrataStorage/StorageError``, …
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The code, the message and the cause.
    public var description: String {
        var text = "\(code): \(message)"
        if let cause { text += " (cause: \(String(reflecting: cause)))" }
        return text
    }
}
