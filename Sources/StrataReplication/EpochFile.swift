import Foundation
import StrataStorage

/// The fencing epoch a store directory was promoted at, kept in `replication-epoch` beside
/// the store's files (docs/REPLICATION.md, "Promotion and fencing").
///
/// A store that was never promoted has no such file: its epoch is 0, the epoch every store
/// starts with in PostgreSQL. A promotion writes the new epoch durably (a new temporary file,
/// `fdatasync`, rename over the old one, sync of the directory) before the promoted store takes
/// a write, so a crash or power loss leaves either the old epoch or the new one, never a torn
/// number; once ``write(_:in:fileSystem:)`` returns, the new one.
enum EpochFile {
    /// The file's name in the store directory.
    static let name = "replication-epoch"

    /// The epoch recorded in `directory`, 0 when there is none.
    ///
    /// - Throws: ``ReplicationError`` `storage` when the file exists but is not an epoch.
    static func read(_ directory: String, fileSystem: any FileSystem = PosixFileSystem()) throws(ReplicationError) -> UInt64 {
        let path = "\(directory)/\(name)"
        guard fileSystem.exists(path) else { return 0 }
        let bytes: [UInt8]
        do {
            let handle = try fileSystem.open(path, mode: .readOnly)
            defer { try? handle.close() }
            bytes = try handle.read(count: Int(try handle.size()), at: 0)
        } catch {
            throw ReplicationError(.storage, "Could not read \(path), the store's replication epoch: \(error)", cause: error as? StorageError)
        }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let epoch = UInt64(text) else {
            throw ReplicationError(.storage, "\(path) should hold the store's replication epoch (a number) but holds something else; it is written only by a promotion. Restore it from a backup of the directory, or delete it only if this store never was a promoted replica.")
        }
        return epoch
    }

    /// Records `epoch` in `directory`, durably.
    ///
    /// - Throws: ``ReplicationError`` `storage` when it cannot be written.
    static func write(_ epoch: UInt64, in directory: String, fileSystem: any FileSystem = PosixFileSystem()) throws(ReplicationError) {
        do {
            try fileSystem.replaceDurably("\(directory)/\(name)", with: Array("\(epoch)\n".utf8))
        } catch {
            throw ReplicationError(.storage, "Could not record replication epoch \(epoch) in \(directory) (\(error)); the promotion did not finish and the store was not opened for writing.", cause: error as? StorageError)
        }
    }
}
