public import Foundation
internal import StrataStorage

/// One transaction of the log, decoded for people: what kind it was and how many rows of
/// each entity it inserted, updated and deleted.
public struct LogEntry: Sendable, Hashable {
    /// Its log sequence number.
    public var lsn: UInt64
    /// When it was committed.
    public var time: Date
    /// `metadata`, `save`, `batch update`, `batch delete`, `batch insert`, `migration`, or
    /// `unknown (N)` for a kind this build does not know.
    public var kind: String
    /// Rows changed, per entity, in schema order; entities it did not touch are left out.
    public var changes: [EntityChangeCounts]
    /// Bytes the transaction takes on disk (frame header and stored payload; for a
    /// transaction listed from persistent history, its history entry).
    public var bytesOnDisk: Int
    /// Bytes of its payload once decompressed.
    public var payloadBytes: Int
    /// The log segment it is in, or the history segment (`history-….hist`) for a
    /// transaction a checkpoint folded into the snapshot, listed from persistent history.
    public var segment: String
    /// Its byte offset in that segment.
    public var offset: Int64
    /// Who made it, when the store keeps persistent history and the transaction had an
    /// author (a context's `transactionAuthor` or name, a batch request's).
    public var author: String?
}

/// How many rows of one entity a transaction inserted, updated and deleted.
public struct EntityChangeCounts: Sendable, Hashable {
    /// The entity's name.
    public var entity: String
    /// Rows inserted.
    public var inserted = 0
    /// Rows updated (for a batch delete: rows whose reference to a deleted row was cleared).
    public var updated = 0
    /// Rows deleted (cascades included).
    public var deleted = 0
}

extension StoreInspector {
    /// The transactions in the log after the snapshot, oldest first, preceded, when the
    /// store keeps persistent history, by the older transactions history still has.
    ///
    /// Transactions a checkpoint folded into the snapshot are no longer in the log; without
    /// persistent history they are not listed.
    ///
    /// - Parameters:
    ///   - from: the first LSN to list (default: all).
    ///   - limit: at most this many entries (`nil`: all).
    /// - Complexity: O(bytes of the listed payloads).
    public func log(from: UInt64 = 0, limit: Int? = nil) -> [LogEntry] {
        // A store that keeps history writes a transaction's author into its frame.
        var authors: [UInt64: String] = [:]
        let records = self.records.map { record -> LogRecord in
            guard let (plain, author) = try? AuthoredPayload.split(record) else { return record }
            if let author { authors[record.lsn] = author }
            return plain
        }
        let older = historyEntries(from: from, before: records.first?.lsn ?? newestLSN + 1, limit: limit)
        let matching = records.filter { $0.lsn >= from }
        let remaining = limit.map { max(0, $0 - older.count) }
        let listed = remaining.map { Array(matching.prefix($0)) } ?? matching
        // Each transaction is decoded with the layouts of the schema it was written with:
        // the snapshot's, then the metadata frame's, then each migration's.
        func layouts(of schema: Schema) -> [EntityLayout] {
            schema.entities.enumerated().map { EntityLayout(entity: $1, index: $0, schema: schema) }
        }
        var current = snapshot.flatMap { try? StoreMetadata(decoding: $0.metadata) }.map { layouts(of: $0.schema) } ?? store.layouts
        var byLSN: [UInt64: [EntityLayout]] = [:]
        let wanted = Set(listed.map(\.lsn))
        for record in records {
            if wanted.contains(record.lsn) { byLSN[record.lsn] = current }
            switch TransactionKind(rawValue: record.kind) {
            case .metadata?:
                if let metadata = try? StoreMetadata(decoding: record.payload) { current = layouts(of: metadata.schema) }
            case .migration?:
                if let step = (try? MigrationRecord(decoding: record.payload))?.steps.last { current = layouts(of: step.metadata.schema) }
            default:
                break
            }
        }
        return older + listed.map { record in
            var entry = entry(for: record, layouts: byLSN[record.lsn] ?? store.layouts)
            entry.author = authors[record.lsn]
            return entry
        }
    }

    private func entry(for record: LogRecord, layouts: [EntityLayout]) -> LogEntry {
        let kind = TransactionKind(rawValue: record.kind)
        return LogEntry(lsn: record.lsn, time: Date(timeIntervalSince1970: Double(record.timestamp) / 1_000_000),
                        kind: kind?.name ?? "unknown (\(record.kind))",
                        changes: (try? changeCounts(record.payload, kind: kind, layouts: layouts)) ?? [],
                        bytesOnDisk: record.bytesOnDisk, payloadBytes: record.payload.count,
                        segment: record.segment, offset: record.offset)
    }

    private func changeCounts(_ payload: [UInt8], kind: TransactionKind?, layouts: [EntityLayout]) throws -> [EntityChangeCounts] {
        var counts = layouts.map { EntityChangeCounts(entity: $0.entity.name) }
        switch kind {
        case .save?, .batchInsert?:
            for (index, changes) in try ChangesetCodec.decode(payload, layouts: layouts).entities {
                counts[index].inserted += changes.inserts.count
                counts[index].updated += changes.updates.count
                counts[index].deleted += changes.deletes.count
            }
        case .batchUpdate?:
            let record = try BatchUpdateRecord(decoding: payload)
            if counts.indices.contains(record.entity) { counts[record.entity].updated += record.keys.count }
        case .batchDelete?:
            let record = try BatchDeleteRecord(decoding: payload)
            for (index, keys) in record.deletes where counts.indices.contains(index) {
                counts[index].deleted += keys.count
            }
            for (index, byProperty) in record.nullifications where counts.indices.contains(index) {
                counts[index].updated += byProperty.values.reduce(0) { $0 + $1.count }
            }
        case .metadata?, .migration?, nil:
            // A migration changes the schema, not rows (see `strata schema --history`).
            break
        }
        return counts.filter { $0.inserted + $0.updated + $0.deleted > 0 }
    }
}
