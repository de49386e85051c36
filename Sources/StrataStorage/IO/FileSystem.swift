/// How a file is opened through the ``FileSystem`` seam.
public enum FileOpenMode: Sendable, Hashable {
    /// Read only; the file must exist.
    case readOnly
    /// Read and write; the file must exist.
    case readWrite
    /// Create a new file (owner-only permissions) for reading and writing; fails if it exists.
    case createNew
}

/// An open file. Every byte Strata reads or writes goes through one of these.
///
/// Writes are positional and may be short (like `pwrite`); callers use ``writeAll(_:at:)-(UnsafeRawBufferPointer,_)``.
/// Implementations must be safe to call from several threads (positional I/O has no shared
/// cursor).
public protocol FileHandle: AnyObject, Sendable {
    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (0 at the end).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
    /// Writes up to `bytes.count` bytes at `offset`; returns how many were written.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int
    /// The file's current size in bytes.
    func size() throws -> Int64
    /// Cuts or extends the file to `size` bytes.
    func truncate(to size: Int64) throws
    /// Forces written data to stable storage (`fdatasync`; `F_FULLFSYNC` on Darwin).
    func sync() throws
    /// Closes the file. Further calls fail.
    func close() throws
}

/// A held exclusive lock; released by ``unlock()`` or when the process exits.
public protocol FileLock: AnyObject, Sendable {
    /// Releases the lock.
    func unlock()
}

/// The seam between Strata and the operating system's files.
///
/// ``PosixFileSystem`` is the real one. Tests substitute a simulated one that injects short
/// writes, errors on the Nth call, and power loss (dropping, tearing or garbage-filling every
/// write that was not yet synced, including file creations and renames).
public protocol FileSystem: Sendable {
    /// Opens a file.
    func open(_ path: String, mode: FileOpenMode) throws -> any FileHandle
    /// The names (not paths) of the entries in a directory.
    func contentsOfDirectory(_ path: String) throws -> [String]
    /// Creates a directory with owner-only permissions; succeeds if it already exists.
    func createDirectory(_ path: String) throws
    /// Whether a file or directory exists at `path`.
    func exists(_ path: String) -> Bool
    /// Whether `path` is a directory.
    func isDirectory(_ path: String) -> Bool
    /// Atomically renames a file, replacing the destination.
    func rename(_ source: String, to destination: String) throws
    /// Removes a file.
    func remove(_ path: String) throws
    /// Makes the directory's entries (creations, renames, removals) durable.
    func syncDirectory(_ path: String) throws
    /// Takes an exclusive lock on `path` (created if needed) without waiting; `nil` when
    /// another process (or another open of the same file) holds it.
    func tryLock(_ path: String) throws -> (any FileLock)?
}

extension FileHandle {
    /// Writes all of `bytes` at `offset`, looping over short writes.
    public func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        var done = 0
        while done < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[done...])
            let written = try write(rest, at: offset + Int64(done))
            guard written > 0 else {
                throw SystemError(operation: "write", path: nil, errno: 5 /* EIO */)
            }
            done += written
        }
    }

    /// Writes all of `bytes` at `offset`, looping over short writes.
    public func writeAll(_ bytes: [UInt8], at offset: Int64) throws {
        try bytes.withUnsafeBytes { try writeAll($0, at: offset) }
    }

    /// Reads exactly `count` bytes at `offset`, or fewer only at the end of the file.
    ///
    /// The buffer is not zero-filled first: only the bytes the file system wrote are exposed.
    public func read(count: Int, at offset: Int64) throws -> [UInt8] {
        var failure: (any Error)?
        let buffer = [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
            let raw = UnsafeMutableRawBufferPointer(storage)
            var done = 0
            do {
                while done < count {
                    let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: raw[done...]),
                                     at: offset + Int64(done))
                    if n == 0 { break }
                    done += n
                }
            } catch {
                failure = error
            }
            initialized = done
        }
        if let failure { throw failure }
        return buffer
    }
}
