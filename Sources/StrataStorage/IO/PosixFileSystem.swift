#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The real file system: one thin wrapper per system call, errors as ``SystemError``.
///
/// Files are created `0600` and directories `0700`. ``FileHandle/sync()`` is `fdatasync`
/// (`F_FULLFSYNC` on Darwin, where `fsync` does not reach the platter).
public struct PosixFileSystem: FileSystem {
    /// Creates the real file system.
    public init() {}

    /// Opens a file with `open(2)`.
    public func open(_ path: String, mode: FileOpenMode) throws -> any FileHandle {
        let flags: Int32
        switch mode {
        case .readOnly: flags = O_RDONLY
        case .readWrite: flags = O_RDWR
        case .createNew: flags = O_RDWR | O_CREAT | O_EXCL
        }
        let fd = retryingOnInterrupt { systemOpen(path, flags | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw SystemError(operation: "open", path: path, errno: errno) }
        return PosixFileHandle(fd: fd, path: path)
    }

    /// Lists a directory with `opendir`/`readdir`, leaving out `.` and `..`.
    public func contentsOfDirectory(_ path: String) throws -> [String] {
        guard let dir = opendir(path) else {
            throw SystemError(operation: "opendir", path: path, errno: errno)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Creates a directory `0700` with `mkdir(2)`.
    public func createDirectory(_ path: String) throws {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw SystemError(operation: "mkdir", path: path, errno: errno)
        }
    }

    /// Whether `path` exists (`stat(2)`).
    public func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether `path` is a directory (`stat(2)`).
    public func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Renames with `rename(2)`.
    public func rename(_ source: String, to destination: String) throws {
        if systemRename(source, destination) != 0 {
            throw SystemError(operation: "rename", path: source, errno: errno)
        }
    }

    /// Removes a file with `unlink(2)`.
    public func remove(_ path: String) throws {
        if unlink(path) != 0 { throw SystemError(operation: "unlink", path: path, errno: errno) }
    }

    /// Opens the directory and `fsync`s it, making entry changes durable.
    public func syncDirectory(_ path: String) throws {
        let fd = systemOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError(operation: "open", path: path, errno: errno) }
        defer { systemClose(fd) }
        if fsync(fd) != 0 { throw SystemError(operation: "fsync", path: path, errno: errno) }
    }

    /// Takes `flock(LOCK_EX | LOCK_NB)` on `path`, created `0600` if needed.
    public func tryLock(_ path: String) throws -> (any FileLock)? {
        let fd = systemOpen(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError(operation: "open", path: path, errno: errno) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            systemClose(fd)
            if code == EWOULDBLOCK { return nil }
            throw SystemError(operation: "flock", path: path, errno: code)
        }
        return PosixFileLock(fd: fd)
    }
}

#if canImport(Glibc)
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 { Glibc.open(path, flags, mode) }
private func systemRename(_ from: String, _ to: String) -> Int32 { Glibc.rename(from, to) }
@discardableResult private func systemClose(_ fd: Int32) -> Int32 { Glibc.close(fd) }
#elseif canImport(Musl)
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 { Musl.open(path, flags, mode) }
private func systemRename(_ from: String, _ to: String) -> Int32 { Musl.rename(from, to) }
@discardableResult private func systemClose(_ fd: Int32) -> Int32 { Musl.close(fd) }
#elseif canImport(Darwin)
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 { Darwin.open(path, flags, mode) }
private func systemRename(_ from: String, _ to: String) -> Int32 { Darwin.rename(from, to) }
@discardableResult private func systemClose(_ fd: Int32) -> Int32 { Darwin.close(fd) }
#endif

/// Retries a system call that failed with `EINTR`.
func retryingOnInterrupt(_ call: () -> Int32) -> Int32 {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}

/// An open file descriptor. Positional I/O only, so it is safe from several threads.
final class PosixFileHandle: FileHandle {
    let fd: Int32
    let path: String

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { systemClose(fd) }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        while true {
            let n = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw SystemError(operation: "pread", path: path, errno: errno) }
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        while true {
            let n = pwrite(fd, bytes.baseAddress, bytes.count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw SystemError(operation: "pwrite", path: path, errno: errno) }
        }
    }

    func size() throws -> Int64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError(operation: "fstat", path: path, errno: errno) }
        return Int64(info.st_size)
    }

    func truncate(to size: Int64) throws {
        if retryingOnInterrupt({ ftruncate(fd, off_t(size)) }) != 0 {
            throw SystemError(operation: "ftruncate", path: path, errno: errno)
        }
    }

    func sync() throws {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return }
        if fsync(fd) != 0 { throw SystemError(operation: "fsync", path: path, errno: errno) }
        #else
        if fdatasync(fd) != 0 { throw SystemError(operation: "fdatasync", path: path, errno: errno) }
        #endif
    }

    func close() throws {
        // The descriptor is closed once, by deinit; closing here would race with other threads.
    }
}

/// A held `flock`; the descriptor is closed (releasing the lock) on unlock or deinit.
final class PosixFileLock: FileLock {
    private let fd: Int32
    init(fd: Int32) { self.fd = fd }
    deinit { systemClose(fd) }
    func unlock() { flock(fd, LOCK_UN) }
}
