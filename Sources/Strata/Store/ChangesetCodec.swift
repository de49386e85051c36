internal import StrataStorage

/// Encodes a save's ``Changeset`` as the payload of a log frame of kind
/// ``TransactionKind/save`` (layout in `docs/FORMAT.md`, "Object-graph payloads").
///
/// `u32` entity count; per entity: `u32` entity index, `u32` inserts (each `i64` key then
/// every stored property's value in layout order), `u32` updates (each `i64` key, `u16`
/// count, then `u16` property index + value pairs), `u32` deletes (each `i64` key).
enum ChangesetCodec {
    static func encode(_ changes: Changeset) -> [UInt8] {
        let entities = changes.entities.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
        // The exact size first, so a large save's payload is allocated once and written
        // with a bounds check and a store per value.
        return PayloadCursor.payload(count: encodedCount(entities.lazy.map(\.value))) { w in
            w.write(UInt32(entities.count))
            for (index, entity) in entities {
                w.write(UInt32(index))
                w.write(UInt32(entity.inserts.count))
                // A batch insert's run is read in place, row after row.
                if let (first, width, values) = entity.inserts.run {
                    var next = 0
                    for row in 0..<entity.inserts.count {
                        w.write(first + Int64(row))
                        for _ in 0..<width {
                            ValueCodec.write(values[next], into: &w)
                            next += 1
                        }
                    }
                } else {
                    for insert in entity.inserts {
                        w.write(insert.primaryKey)
                        for value in insert.values { ValueCodec.write(value, into: &w) }
                    }
                }
                w.write(UInt32(entity.updates.count))
                for update in entity.updates {
                    w.write(update.primaryKey)
                    w.write(UInt16(update.values.count))
                    for (property, value) in update.values {
                        w.write(UInt16(property))
                        ValueCodec.write(value, into: &w)
                    }
                }
                w.write(UInt32(entity.deletes.count))
                for delete in entity.deletes { w.write(delete.primaryKey) }
            }
        }
    }

    /// The number of bytes ``encode(_:)`` writes for `entities`.
    private static func encodedCount(_ entities: some Sequence<Changeset.EntityChanges>) -> Int {
        var count = 4
        for entity in entities {
            count += 16 + 8 * entity.deletes.count + 8 * entity.inserts.count
            let countedRun: Int? = entity.inserts.withRunValues { _, _, values in
                values.reduce(0) { $0 + ValueCodec.encodedCount($1) }
            }
            if let countedRun {
                count += countedRun
            } else {
                for insert in entity.inserts {
                    for value in insert.values { count += ValueCodec.encodedCount(value) }
                }
            }
            for update in entity.updates {
                count += 10 + 2 * update.values.count
                for (_, value) in update.values { count += ValueCodec.encodedCount(value) }
            }
        }
        return count
    }

    static func decode(_ bytes: [UInt8], layouts: [EntityLayout]) throws -> Changeset {
        var r = ByteReader(bytes)
        var changes = Changeset()
        let count = Int(try r.readUInt32())
        for _ in 0..<count {
            let index = Int(try r.readUInt32())
            guard layouts.indices.contains(index) else { throw PayloadError("unknown entity #\(index)") }
            let layout = layouts[index]
            var entity = Changeset.EntityChanges()
            let inserts = Int(try r.readUInt32())
            guard inserts <= r.remaining / 8 else { throw PayloadError("impossible insert count") }
            entity.inserts.reserveCapacity(inserts)
            for _ in 0..<inserts {
                let key = try r.readInt64()
                var values: [AttributeValue] = []
                values.reserveCapacity(layout.properties.count)
                for _ in layout.properties { values.append(try ValueCodec.read(from: &r)) }
                entity.inserts.append(.init(primaryKey: key, values: values))
            }
            let updates = Int(try r.readUInt32())
            guard updates <= r.remaining / 10 else { throw PayloadError("impossible update count") }
            for _ in 0..<updates {
                let key = try r.readInt64()
                let n = Int(try r.readUInt16())
                var values: [(Int, AttributeValue)] = []
                for _ in 0..<n {
                    let property = Int(try r.readUInt16())
                    guard layout.properties.indices.contains(property) else { throw PayloadError("unknown property #\(property)") }
                    values.append((property, try ValueCodec.read(from: &r)))
                }
                entity.updates.append(.init(primaryKey: key, expectedVersion: 0, values: values))
            }
            let deletes = Int(try r.readUInt32())
            guard deletes <= r.remaining / 8 else { throw PayloadError("impossible delete count") }
            for _ in 0..<deletes { entity.deletes.append(.init(primaryKey: try r.readInt64(), expectedVersion: 0)) }
            changes.entities[index] = entity
        }
        guard r.isAtEnd else { throw PayloadError("unexpected bytes after the last entity") }
        return changes
    }
}

/// The kinds of log frames the object graph writes.
enum TransactionKind: UInt8, Sendable, CaseIterable {
    /// The store's identity and schema; the first transaction of every store.
    case metadata = 1
    /// A context's save.
    case save = 2
    /// A batch update request.
    case batchUpdate = 3
    /// A batch delete request.
    case batchDelete = 4
    /// A batch insert request.
    case batchInsert = 5
    /// A schema migration (`MigrationRecord`): every step of it, as one transaction.
    case migration = 6

    /// A lowercase name for tools (`strata log`).
    var name: String {
        switch self {
        case .metadata: return "metadata"
        case .save: return "save"
        case .batchUpdate: return "batch update"
        case .batchDelete: return "batch delete"
        case .batchInsert: return "batch insert"
        case .migration: return "migration"
        }
    }
}
