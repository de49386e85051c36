internal import StrataStorage

/// The payload of a migration transaction (frame kind 6): the whole migration, every stage
/// of it, as one atomic log record. Replay applies its steps in order; a crash before the
/// frame is whole leaves the old schema and data, after it the new.
///
/// Layout (`docs/FORMAT.md`, 12.9): `u8` tag 1; `u32` step count; per step: `u32` length +
/// store metadata without keys (the step's schema), the mapping (`u32` entity count; per new
/// entity `u32` source entity + 1 or 0, `u32` property count, per stored property `u32`
/// source property + 1 or 0), `u32` length + a changeset in the step's layouts (what a
/// custom stage wrote; length 0 when none), the version label, and `u32` count + the change
/// sentences.
struct MigrationRecord: Sendable {
    static let formatTag: UInt8 = 1

    struct Step: Sendable {
        var metadata: StoreMetadata
        var mapping: SchemaMapping
        /// Encoded changeset (in the step schema's layouts), or empty.
        var changes: [UInt8]
        var label: String
        var summary: [String]
    }

    var steps: [Step]

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 4096)
        w.write(Self.formatTag)
        w.write(UInt32(steps.count))
        for step in steps {
            let metadata = step.metadata.encoded(includingKeys: false)
            w.write(UInt32(metadata.count))
            w.write(metadata)
            w.write(UInt32(step.mapping.entities.count))
            for entity in step.mapping.entities {
                w.write(UInt32(entity.source.map { $0 + 1 } ?? 0))
                w.write(UInt32(entity.properties.count))
                for property in entity.properties { w.write(UInt32(property.map { $0 + 1 } ?? 0)) }
            }
            w.write(UInt32(step.changes.count))
            w.write(step.changes)
            w.writeString(step.label)
            w.write(UInt32(step.summary.count))
            for line in step.summary { w.writeString(line) }
        }
        return w.bytes
    }

    init(steps: [Step]) { self.steps = steps }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        guard try r.readUInt8() == Self.formatTag else { throw PayloadError("unknown migration record version") }
        let count = Int(try r.readUInt32())
        guard count <= r.remaining / 16 else { throw PayloadError("impossible migration step count") }
        steps = []
        for _ in 0..<count {
            let length = Int(try r.readUInt32())
            let metadata = try StoreMetadata(decoding: Array(try r.readBytes(length)))
            let entityCount = Int(try r.readUInt32())
            guard entityCount == metadata.schema.entities.count else { throw PayloadError("the mapping does not match the step's schema") }
            var entities: [SchemaMapping.EntityMap] = []
            for _ in 0..<entityCount {
                let source = Int(try r.readUInt32())
                let propertyCount = Int(try r.readUInt32())
                guard propertyCount <= r.remaining / 4 else { throw PayloadError("impossible property count") }
                let properties = try (0..<propertyCount).map { _ -> Int? in
                    let value = Int(try r.readUInt32())
                    return value == 0 ? nil : value - 1
                }
                entities.append(.init(source: source == 0 ? nil : source - 1, properties: properties))
            }
            let changesLength = Int(try r.readUInt32())
            let changes = Array(try r.readBytes(changesLength))
            let label = try r.readString()
            let lines = Int(try r.readUInt32())
            guard lines <= r.remaining / 4 else { throw PayloadError("impossible change count") }
            let summary = try (0..<lines).map { _ in try r.readString() }
            steps.append(Step(metadata: metadata, mapping: SchemaMapping(entities: entities), changes: changes,
                              label: label, summary: summary))
        }
        guard r.isAtEnd else { throw PayloadError("unexpected bytes after the last migration step") }
    }
}

/// The store state a migration transforms: the schema, its layouts, the tables and keys.
struct MigrationState: Sendable {
    var metadata: StoreMetadata
    var layouts: [EntityLayout]
    var tables: [EntityTable]

    /// Applies one step: maps the tables onto the step's schema, then applies what a custom
    /// stage wrote. Replay and the migration itself both call it, so they agree.
    mutating func apply(_ step: MigrationRecord.Step, lsn: UInt64) throws {
        let schema = step.metadata.schema
        guard step.mapping.entities.count == schema.entities.count,
              zip(step.mapping.entities, schema.entities).allSatisfy({ map, entity in
                  (map.source.map { layouts.indices.contains($0) } ?? true)
                      && map.properties.count == EntityLayout(entity: entity, index: 0, schema: schema).properties.count
                      && map.properties.allSatisfy { p in p.map { p in map.source.map { layouts[$0].properties.indices.contains(p) } ?? false } ?? true }
              }) else {
            throw PayloadError("the migration's mapping does not fit the stored schema")
        }
        let newLayouts = schema.entities.enumerated().map { EntityLayout(entity: $1, index: $0, schema: schema) }
        let mapped = step.mapping.apply(to: tables, oldLayouts: layouts, newLayouts: newLayouts, nextKeys: metadata.nextPrimaryKeys)
        var version = StoreVersion(lsn: lsn, tables: mapped.tables)
        var keys = mapped.nextKeys
        if !step.changes.isEmpty {
            let changes = try ChangesetCodec.decode(step.changes, layouts: newLayouts)
            try PersistentStore.apply(changes, to: &version, lsn: lsn, nextKeys: &keys)
        }
        let history = metadata.history + [SchemaHistoryEntry(lsn: lsn, label: step.label, changes: step.summary)]
        metadata = StoreMetadata(storeID: metadata.storeID, schema: schema, nextPrimaryKeys: keys)
        metadata.history = history
        layouts = newLayouts
        tables = version.tables
    }
}
