import Foundation
internal import StrataStorage

extension StoreInspector {
    /// The transactions from `from` up to (not including) `before` that persistent history
    /// keeps: those a checkpoint folded into the snapshot, which the log no longer has.
    /// Empty when the store keeps no history.
    func historyEntries(from: UInt64, before: UInt64, limit: Int?) -> [LogEntry] {
        guard let historyLog = store.historyLog, before > max(from, 1) else { return [] }
        let frames = ((try? historyLog.read(after: max(from, 1) - 1, through: before - 1)) ?? [])
            .filter { $0.segment != "(memory)" }
        let order = Dictionary(uniqueKeysWithValues: store.layouts.map { ($0.entity.name, $0.index) })
        let listed = limit.map { Array(frames.prefix(max(0, $0))) } ?? frames
        return listed.compactMap { frame in
            guard let entry = try? HistoryEntry(decoding: frame.payload) else { return nil }
            var counts: [String: EntityChangeCounts] = [:]
            for group in entry.groups {
                var count = counts[group.entity] ?? EntityChangeCounts(entity: group.entity)
                switch group.type {
                case .insert: count.inserted += group.keys.count
                case .update: count.updated += group.keys.count
                case .delete: count.deleted += group.keys.count
                }
                counts[group.entity] = count
            }
            let changes = counts.values.sorted { (order[$0.entity] ?? .max, $0.entity) < (order[$1.entity] ?? .max, $1.entity) }
            return LogEntry(lsn: frame.lsn, time: Date(timeIntervalSince1970: Double(frame.timestamp) / 1_000_000),
                            kind: entry.kind.name, changes: changes, bytesOnDisk: frame.bytesOnDisk,
                            payloadBytes: frame.payload.count, segment: frame.segment, offset: frame.offset,
                            author: entry.author)
        }
    }
}
