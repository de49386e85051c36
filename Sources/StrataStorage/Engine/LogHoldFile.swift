/// A hold on the log by another process: `replication-hold` in the store directory, written
/// by `strata replicate` (the sidecar, which follows a store that another process writes) and
/// read by the writer's checkpoints, which keep every segment holding a frame at or after the
/// LSN it names (docs/REPLICATION.md, "The sidecar's hold").
///
/// It is the out-of-process twin of ``ReplicationHooks/retainLog(from:)``. The file holds one
/// decimal LSN and a newline: the first LSN the sidecar has not shipped. It is replaced whole
/// (a new temporary file, `fdatasync`, rename, sync of the directory), so a reader sees the
/// old hold or the new one; a hold that lags behind what was shipped only keeps more of the
/// log. A file that cannot be read as an LSN holds the whole log: the checkpoint keeps too
/// much rather than delete a frame that might not be shipped.
package enum LogHoldFile {
    /// The file's name in the store directory.
    package static let name = "replication-hold"

    /// The first LSN held in `directory`, `nil` when nothing holds the log there (0 when the
    /// file is unreadable: everything is held).
    package static func read(in directory: String, fileSystem: any FileSystem) -> UInt64? {
        let path = "\(directory)/\(name)"
        guard fileSystem.exists(path) else { return nil }
        guard let handle = try? fileSystem.open(path, mode: .readOnly) else { return 0 }
        defer { try? handle.close() }
        guard let size = try? handle.size(), size < 64, let bytes = try? handle.read(count: Int(size), at: 0) else { return 0 }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasSuffix("\n"), let lsn = UInt64(text.dropLast()) else { return 0 }
        return lsn
    }

    /// Holds the log in `directory` from `lsn` on, durably.
    ///
    /// - Throws: ``StorageError`` `io` or `diskFull` when the file cannot be written (the
    ///   previous hold, if any, is left as it was).
    package static func write(_ lsn: UInt64, in directory: String, fileSystem: any FileSystem) throws {
        try WriteAheadLog.wrap("Recording the replication hold in \(directory)") {
            try fileSystem.replaceDurably("\(directory)/\(name)", with: Array("\(lsn)\n".utf8))
        }
    }
}
