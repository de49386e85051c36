import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small file-system helpers the harness and the workloads share.
enum Files {
    /// The total size in bytes of the regular files under `directory`, recursively.
    static func totalSize(of directory: URL) throws -> Int {
        guard let enumerator = FileManager.default.enumerator(
            at: directory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
        else { return 0 }
        var total = 0
        for case let url as URL in enumerator {
            let values = try url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            if values.isRegularFile == true { total += values.fileSize ?? 0 }
        }
        return total
    }

    /// Flushes every file system's dirty data (`sync(2)`), so writeback left over from an
    /// earlier run (a deleted 40 MB database, a fixture copy) does not stall this run's
    /// fsyncs. Called before every run of both engines.
    static func settle() {
        sync()
    }

    /// Creates a new empty directory `name` under `parent`, replacing any leftover.
    static func freshDirectory(_ name: String, in parent: URL) throws -> URL {
        let url = parent.appendingPathComponent(name, isDirectory: true)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Progress for the person watching, on standard error so standard output stays the report.
func log(_ message: String) {
    FileHandle.standardError.write(Data(("· " + message + "\n").utf8))
}
