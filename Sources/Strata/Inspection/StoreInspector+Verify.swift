import Foundation
public import StrataStorage

extension StoreInspector {
    /// Verifies the store in `directory` without changing it: every checksum (log frames,
    /// every snapshot's header, footer and chunks), the replay of the log and, when `deep`,
    /// every snapshot chunk decoded and the invariants of the object graph (see
    /// ``verifyInvariants(into:)``).
    ///
    /// Damage is reported as a finding, not thrown, so that the report is complete.
    ///
    /// - Parameter cipher: the cipher of an encrypted store; `nil` for a plain one.
    /// - Throws: `StorageError` for what is not damage: `notAStore`, `unsupportedFormat`, `io`,
    ///   and `wrongKey`, `encryptionKeyRequired` or `notEncrypted` when `cipher` does not fit.
    /// - Complexity: O(size of the store).
    public static func verify(at directory: String, deep: Bool,
                              cipher: (any StoreCipher)? = nil) throws -> VerificationReport {
        var report = VerificationReport()
        report.deep = deep
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let inspector: StoreInspector
        do {
            inspector = try open(at: directory, cipher: cipher)
        } catch let error as StorageError where error.code == .corrupted {
            report.error(error.message, file: error.file, offset: error.offset)
            verifySnapshots(names.sorted(), directory: directory, deep: deep, cipher: cipher, into: &report)
            return report
        } catch let error as StrataError where error.code == .corrupted && (error.cause as? StorageError)?.code == .corrupted {
            // A chunk of the snapshot the open started from failed its first read (the open
            // leaves chunks to their reads when nothing could replace a damaged snapshot): the
            // storage error names it, as the check of that snapshot file below does again.
            let storage = error.cause as! StorageError
            report.error(storage.message, file: storage.file, offset: storage.offset)
            verifySnapshots(names.sorted(), directory: directory, deep: deep, cipher: cipher, into: &report)
            return report
        }
        let frames = inspector.records.count
        let scope = inspector.recoveryReport.snapshotFile == nil ? "in the log (no snapshot yet)" : "after the snapshot"
        report.checks.append("\(frames) log \(frames == 1 ? "frame" : "frames") \(scope): checksums and LSN sequence")
        let replayed = inspector.recoveryReport.replayedTransactions
        report.checks.append("replay of \(replayed) \(replayed == 1 ? "transaction" : "transactions") up to LSN \(inspector.lsn)")
        if let torn = inspector.recoveryReport.tornTail {
            report.warning("\(torn.file) ends in a torn transaction (\(torn.bytesDiscarded) bytes after byte \(torn.offset), from an interrupted write); the next writable open cuts it off. Committed data is intact up to LSN \(torn.lastGoodLSN).",
                           file: "\(directory)/\(torn.file)", offset: torn.offset)
        }
        for (name, reason) in inspector.recoveryReport.unusableSnapshots.sorted(by: { $0.key < $1.key }) {
            report.error("Snapshot \(name) is unusable: \(reason)", file: "\(directory)/\(name)")
        }
        verifySnapshots(names.sorted().filter { inspector.recoveryReport.unusableSnapshots[$0] == nil },
                        directory: directory, deep: deep, cipher: cipher, into: &report)
        if deep { inspector.verifyInvariants(into: &report) }
        if let hold = LogHold.read(in: directory, lastLSN: inspector.newestLSN), hold.deservesWarning {
            report.warning(hold.explanation, file: "\(directory)/\(LogHoldFile.name)")
        }
        return report
    }

    /// Checks every snapshot file's checksums, and with `deep` decodes every chunk.
    private static func verifySnapshots(_ names: [String], directory: String, deep: Bool,
                                        cipher: (any StoreCipher)?, into report: inout VerificationReport) {
        for name in names where StoreFileNames.snapshotLSN(name) != nil {
            do {
                let reader = try SnapshotReader(fileSystem: PosixFileSystem(), directory: directory, name: name, cipher: cipher)
                try reader.verifyChecksums()
                if deep { for index in reader.chunks.indices { _ = try reader.readChunk(index) } }
                report.checks.append("\(name): \(reader.chunks.count) chunks, checksums" + (deep ? " and decoding" : ""))
            } catch let error as StorageError {
                report.error(error.message, file: error.file ?? "\(directory)/\(name)", offset: error.offset)
            } catch {
                report.error("Snapshot \(name) cannot be read: \(error)", file: "\(directory)/\(name)")
            }
        }
    }
}
