#if canImport(Glibc)
import Glibc

private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    Glibc.write(fd, bytes, count)
}
private func systemSync(_ fd: Int32) -> Int32 { Glibc.fsync(fd) }
private func systemDataSync(_ fd: Int32) -> Int32 { Glibc.fdatasync(fd) }
#elseif canImport(Darwin)
import Darwin

private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    Darwin.write(fd, bytes, count)
}
// On Apple platforms only F_FULLFSYNC reaches stable storage.
private func systemSync(_ fd: Int32) -> Int32 { fcntl(fd, F_FULLFSYNC) == -1 ? -1 : 0 }
private func systemDataSync(_ fd: Int32) -> Int32 { systemSync(fd) }
#endif

/// An open file and the few POSIX calls the machine-limit probes need, wrapped once, with
/// errors that say which call failed on which file. Closed when released.
final class FileDescriptor {
    private let fd: Int32
    private let path: String

    /// Creates (or truncates) `path` for writing, owner-only.
    init(creating path: String) throws(FileCallError) {
        let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0o600)
        guard fd >= 0 else { throw FileCallError(call: "open", path: path, errno: errno) }
        self.fd = fd
        self.path = path
    }

    deinit {
        close(fd)
    }

    /// Writes all of `bytes` at the current offset.
    func write(_ bytes: [UInt8]) throws(FileCallError) {
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                systemWrite(fd, buffer.baseAddress! + done, buffer.count - done)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw FileCallError(call: "write", path: path, errno: errno)
            }
            done += written
        }
    }

    /// Flushes data and metadata to stable storage.
    func fsync() throws(FileCallError) {
        guard systemSync(fd) == 0 else { throw FileCallError(call: "fsync", path: path, errno: errno) }
    }

    /// Flushes data (and the metadata needed to read it back, such as a grown size) to stable
    /// storage.
    func fdatasync() throws(FileCallError) {
        guard systemDataSync(fd) == 0 else {
            throw FileCallError(call: "fdatasync", path: path, errno: errno)
        }
    }
}

/// A file call failed.
struct FileCallError: Error, CustomStringConvertible {
    let call: String
    let path: String
    let errno: Int32

    var description: String {
        "\(call) failed on \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
