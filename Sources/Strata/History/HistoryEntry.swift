internal import StrataStorage

/// The history entry of one transaction, as stored in a ``HistoryLog`` frame (layout in
/// `docs/FORMAT.md`, "History"): its kind, author and changed rows, by entity and property
/// *name* (so entries stay readable after a migration renumbers entities), the rows as key
/// ranges — a batch over a million contiguous rows takes a few bytes.
struct HistoryEntry: Sendable, Equatable {
    /// Rows of one entity that one kind of change touched (for updates: the same keys).
    struct Group: Sendable, Equatable {
        var type: PersistentHistoryChangeType
        var entity: String
        /// The keys an update changed (empty for inserts and deletes), sorted.
        var properties: [String]
        var keys: KeyRanges
    }

    static let version: UInt8 = 1

    var kind: TransactionKind
    var author: String?
    var groups: [Group]

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 32 + groups.count * 24)
        w.write(Self.version)
        w.write(kind.rawValue)
        Self.writeName(author, into: &w)
        w.write(UInt32(groups.count))
        for group in groups {
            w.write(group.type.rawValue)
            Self.writeName(group.entity, into: &w)
            w.write(UInt16(group.properties.count))
            for property in group.properties { Self.writeName(property, into: &w) }
            group.keys.encode(into: &w)
        }
        return w.bytes
    }

    init(kind: TransactionKind, author: String?, groups: [Group]) {
        self.kind = kind
        self.author = author
        self.groups = groups
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        guard try r.readUInt8() == Self.version else { throw PayloadError("unknown history entry version") }
        guard let kind = TransactionKind(rawValue: try r.readUInt8()) else { throw PayloadError("unknown transaction kind") }
        self.kind = kind
        author = try Self.readName(&r)
        let count = Int(try r.readUInt32())
        guard count <= r.remaining / 6 else { throw PayloadError("impossible group count") }
        groups = []
        groups.reserveCapacity(count)
        for _ in 0..<count {
            guard let type = PersistentHistoryChangeType(rawValue: try r.readUInt8()) else { throw PayloadError("unknown change type") }
            guard let entity = try Self.readName(&r) else { throw PayloadError("a group without an entity") }
            let n = Int(try r.readUInt16())
            var properties: [String] = []
            for _ in 0..<n {
                guard let property = try Self.readName(&r) else { throw PayloadError("a missing property name") }
                properties.append(property)
            }
            groups.append(Group(type: type, entity: entity, properties: properties, keys: try KeyRanges(decoding: &r)))
        }
        guard r.isAtEnd else { throw PayloadError("unexpected bytes after a history entry") }
    }

    /// `u16` length then UTF-8; `0xFFFF` for none.
    private static func writeName(_ name: String?, into w: inout ByteWriter) {
        guard let name else { w.write(UInt16.max); return }
        let utf8 = Array(name.utf8.prefix(Int(UInt16.max) - 1))
        w.write(UInt16(utf8.count))
        w.write(utf8)
    }

    private static func readName(_ r: inout ByteReader) throws -> String? {
        let length = try r.readUInt16()
        guard length != UInt16.max else { return nil }
        return String(decoding: try r.readBytes(Int(length)), as: UTF8.self)
    }
}

extension HistoryEntry {
    /// The groups of a save or batch insert: inserted keys, updated keys per set of changed
    /// properties, deleted keys, per entity.
    ///
    /// - Complexity: O(n log n) in the rows changed (O(n) for inserts of fresh keys).
    static func groups(_ changes: Changeset, layouts: [EntityLayout]) -> [Group] {
        var groups: [Group] = []
        for (index, entity) in changes.entities.sorted(by: { $0.key < $1.key }) {
            let layout = layouts[index]
            let name = layout.entity.name
            if !entity.inserts.isEmpty {
                groups.append(Group(type: .insert, entity: name, properties: [],
                                    keys: PersistentStore.keyRanges(entity.inserts)))
            }
            if !entity.updates.isEmpty {
                var byProperties: [[Int]: [Int64]] = [:]
                // Updates come in runs that set the same properties (an upsert's rows, a
                // save's objects): a run's keys are gathered first and filed under its sorted
                // properties once, rather than an array made, sorted and hashed per update. An
                // update whose properties are not in ascending order just ends the run.
                var run: (properties: [Int], keys: [Int64])?
                for update in entity.updates {
                    if let current = run?.properties, update.values.count == current.count,
                       update.values.indices.allSatisfy({ update.values[$0].property == current[$0] }) {
                        run!.keys.append(update.primaryKey)
                        continue
                    }
                    if let run { byProperties[run.properties, default: []].append(contentsOf: run.keys) }
                    run = (update.values.map(\.property).sorted(), [update.primaryKey])
                }
                if let run { byProperties[run.properties, default: []].append(contentsOf: run.keys) }
                for (properties, keys) in byProperties.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                    groups.append(Group(type: .update, entity: name,
                                        properties: properties.map { layout.properties[$0].name }.sorted(),
                                        keys: KeyRanges(sortedKeys: sortedDistinct(keys))))
                }
            }
            if !entity.deletes.isEmpty {
                groups.append(Group(type: .delete, entity: name, properties: [],
                                    keys: KeyRanges(sortedKeys: sortedDistinct(entity.deletes.map(\.primaryKey)))))
            }
        }
        return groups
    }

    /// The group of a batch update: its entity, the keys it assigns, the matched rows.
    static func groups(_ record: BatchUpdateRecord, layouts: [EntityLayout]) -> [Group] {
        let layout = layouts[record.entity]
        let properties = Set(record.assignments.map { layout.properties[$0.property].name }).sorted()
        return [Group(type: .update, entity: layout.entity.name, properties: properties, keys: record.keys)]
    }

    /// The groups of a batch delete: the rows deleted (cascades included), and the rows
    /// whose reference to a deleted row was cleared, as updates of that relationship.
    static func groups(_ record: BatchDeleteRecord, layouts: [EntityLayout]) -> [Group] {
        var groups: [Group] = []
        for (entity, byProperty) in record.nullifications.sorted(by: { $0.key < $1.key }) {
            let layout = layouts[entity]
            for (property, keys) in byProperty.sorted(by: { $0.key < $1.key }) {
                groups.append(Group(type: .update, entity: layout.entity.name,
                                    properties: [layout.properties[property].name], keys: keys))
            }
        }
        for (entity, keys) in record.deletes.sorted(by: { $0.key < $1.key }) {
            groups.append(Group(type: .delete, entity: layouts[entity].entity.name, properties: [], keys: keys))
        }
        return groups
    }

    private static func sortedDistinct(_ keys: [Int64]) -> [Int64] {
        var sorted = keys
        sorted.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(sorted.count)
        for key in sorted where unique.last != key { unique.append(key) }
        return unique
    }
}
