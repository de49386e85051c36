/// The error type of the storage layer: frames, log segments, snapshots, files and locks.
///
/// Like ``StorageError/Code`` values, messages name the file, the byte offset and the last
/// good log sequence number when they are known, and say what to do. They never contain
/// stored user data.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// A kind of storage failure. New codes can be added without breaking `catch` clauses.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, such as `"corrupted"`.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// Lets a `catch` clause match on a code: `catch StorageError.Code.locked { … }`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? StorageError)?.code == code
        }

        /// A checksum, magic number, length or sequence check failed in the middle of the data.
        public static let corrupted = Code(rawValue: "corrupted")
        /// Another process holds the store's writer lock.
        public static let locked = Code(rawValue: "locked")
        /// The store was written by a newer, incompatible format version.
        public static let unsupportedFormat = Code(rawValue: "unsupportedFormat")
        /// The directory is not a Strata store (and creating one was not asked for).
        public static let notAStore = Code(rawValue: "notAStore")
        /// The store is read-only: opened read-only, or a write or fsync failed earlier.
        public static let readOnly = Code(rawValue: "readOnly")
        /// The disk (or quota) is full.
        public static let diskFull = Code(rawValue: "diskFull")
        /// Any other failed system call.
        public static let io = Code(rawValue: "io")
        /// A frame, chunk or value is larger than the format allows.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// The store was closed.
        public static let closed = Code(rawValue: "closed")
        /// An argument is outside what the operation accepts.
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        /// The encryption key given is not the one the store was encrypted with.
        public static let wrongKey = Code(rawValue: "wrongKey")
        /// The store is encrypted and no encryption key was given.
        public static let encryptionKeyRequired = Code(rawValue: "encryptionKeyRequired")
        /// An encryption key was given for a store that is not encrypted.
        public static let notEncrypted = Code(rawValue: "notEncrypted")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What failed and what to do about it.
    public var message: String
    /// The file involved, when there is one.
    public var file: String?
    /// The byte offset in ``file`` where the problem was found, when known.
    public var offset: Int64?
    /// The last log sequence number known to be good, when known.
    public var lastGoodLSN: UInt64?
    /// The underlying error, such as a ``SystemError``.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, file: String? = nil, offset: Int64? = nil,
                lastGoodLSN: UInt64? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.file = file
        self.offset = offset
        self.lastGoodLSN = lastGoodLSN
        self.cause = cause
    }

    /// A human-readable description with the code, message, file, offset and cause.
    public var description: String {
        var text = "\(code): \(message)"
        if let file { text += " [file: \(file)" + (offset.map { ", offset: \($0)" } ?? "") + "]" }
        if let lastGoodLSN { text += " [last good LSN: \(lastGoodLSN)]" }
        if let cause { text += " (cause: \(cause))" }
        return text
    }

    /// A `corrupted` error naming the file, the offset, the last good LSN and the reason.
    public static func corrupted(file: String, offset: Int64, lastGoodLSN: UInt64?,
                                 reason: String) -> StorageError {
        StorageError(.corrupted,
                     "\(reason) in \(file) at byte \(offset); the data up to LSN \(lastGoodLSN.map(String.init) ?? "none") is intact. Restore from a backup, or open with recovery mode .pointInTime to keep the good prefix and move the rest aside.",
                     file: file, offset: offset, lastGoodLSN: lastGoodLSN)
    }
}
