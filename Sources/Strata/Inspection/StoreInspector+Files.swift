import Foundation
public import StrataStorage

/// One file of a store directory, as `strata info` lists it.
public struct StoreFile: Sendable, Hashable {
    /// What a file in a store directory is.
    public enum Kind: String, Sendable, Hashable {
        /// A snapshot (`snapshot-<LSN>.snap`).
        case snapshot
        /// A log segment (`wal-<firstLSN>.log`).
        case logSegment = "log"
        /// The writer lock file.
        case lock
        /// The report of the last writable open (`last-recovery.json`).
        case recoveryReport = "report"
        /// Data moved aside by point-in-time recovery.
        case quarantine
        /// Anything else.
        case other
    }

    /// The file's name in the store directory.
    public var name: String
    /// What it is.
    public var kind: Kind
    /// Its size in bytes.
    public var size: Int64
    /// The first LSN it holds (a segment's first transaction, a snapshot's LSN).
    public var firstLSN: UInt64?
    /// The last LSN it holds, when the open read it.
    public var lastLSN: UInt64?
    /// Bytes of its content once decompressed (snapshot chunks, or the payloads of the
    /// segment's transactions after the snapshot), when known.
    public var uncompressedBytes: Int64?
    /// Bytes that content takes on disk, to compare with ``uncompressedBytes``.
    public var storedBytes: Int64?

    /// Uncompressed ÷ stored bytes (2.0 means the content takes half its size), when known.
    public var compressionRatio: Double? {
        guard let uncompressedBytes, let storedBytes, storedBytes > 0 else { return nil }
        return Double(uncompressedBytes) / Double(storedBytes)
    }
}

extension StoreInspector {
    /// Every file in the store directory, sorted by name, with sizes, LSN ranges and
    /// compression ratios where the open read them.
    ///
    /// - Throws: `StorageError` `.io` when the directory cannot be listed.
    public func files() throws -> [StoreFile] {
        let manager = FileManager.default
        let names: [String]
        do { names = try manager.contentsOfDirectory(atPath: directory).sorted() }
        catch { throw StorageError(.io, "Cannot list the store directory \(directory) (\(error.localizedDescription)).", file: directory) }
        let bySegment = Dictionary(grouping: records, by: \.segment)
        return names.map { name in
            let size = ((try? manager.attributesOfItem(atPath: "\(directory)/\(name)"))?[.size] as? NSNumber)?.int64Value ?? 0
            var file = StoreFile(name: name, kind: .other, size: size)
            if let lsn = StoreFileNames.snapshotLSN(name) {
                file.kind = .snapshot
                file.firstLSN = lsn
                file.lastLSN = lsn
                if let snapshot, snapshot.name == name {
                    file.uncompressedBytes = snapshot.chunks.reduce(0) { $0 + Int64($1.rawLength) }
                    file.storedBytes = snapshot.chunks.reduce(0) { $0 + Int64($1.length) }
                }
            } else if let first = StoreFileNames.segmentLSN(name) {
                file.kind = .logSegment
                file.firstLSN = first
                if let read = bySegment[name], !read.isEmpty {
                    file.lastLSN = read.last?.lsn
                    file.uncompressedBytes = read.reduce(0) { $0 + Int64($1.payload.count) }
                    file.storedBytes = read.reduce(0) { $0 + Int64($1.bytesOnDisk) }
                }
            } else if name == StoreFileNames.lock {
                file.kind = .lock
            } else if name == StorageEngine.recoveryReportFile {
                file.kind = .recoveryReport
            } else if name.hasSuffix(".quarantine") {
                file.kind = .quarantine
            }
            return file
        }
    }

    /// The report the last writable open wrote to `last-recovery.json`, or `nil` when
    /// there is none or it does not decode.
    public func lastWritableRecoveryReport() -> RecoveryReport? {
        let path = "\(directory)/\(StorageEngine.recoveryReportFile)"
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(RecoveryReport.self, from: data)
    }
}
