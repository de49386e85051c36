#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A failed system call: the operation, the path and the `errno` value.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The system call or operation, such as `"fsync"`.
    public var operation: String
    /// The path involved, when there is one.
    public var path: String?
    /// The `errno` value.
    public var errno: Int32

    /// Creates a system error.
    public init(operation: String, path: String?, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// Whether the failure means the disk or quota is full.
    public var isDiskFull: Bool { errno == ENOSPC || errno == EDQUOT }

    /// `"<operation> <path>: <strerror>"`.
    public var description: String {
        let reason = String(cString: strerror(errno))
        return "\(operation)\(path.map { " \($0)" } ?? ""): \(reason) (errno \(errno))"
    }

    /// Wraps this error as a ``StorageError`` whose code says whether the disk is full.
    func asStorageError(_ what: String) -> StorageError {
        if isDiskFull {
            return StorageError(.diskFull, "\(what): the disk is full. Free some space, then reopen the store; nothing committed was lost.", file: path, cause: self)
        }
        return StorageError(.io, "\(what) failed: \(description)", file: path, cause: self)
    }
}

extension StorageError {
    /// Whether the underlying cause is a file that does not exist (`ENOENT`).
    var isMissingFile: Bool { (cause as? SystemError)?.errno == ENOENT }
}
