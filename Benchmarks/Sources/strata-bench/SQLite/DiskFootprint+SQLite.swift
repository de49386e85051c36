import Foundation
import GRDB

extension DiskFootprint {
    /// Opens a copy of the to-do database (built by inserting every item in one transaction),
    /// runs `PRAGMA wal_checkpoint(TRUNCATE)` and measures every file in its directory while
    /// the connection is still open (the database, the emptied WAL and the shared-memory
    /// index).
    static func sqlite(_ run: RunContext) async throws -> Double {
        let path = try await SQLiteFixtures.todoDatabase(for: run)
        let queue = try SQLiteDatabase.openQueue(at: path)
        try SQLiteDatabase.checkpoint(queue)
        let bytes = try Files.totalSize(of: URL(fileURLWithPath: path).deletingLastPathComponent())
        try queue.close()
        return Double(bytes)
    }
}
