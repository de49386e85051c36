/// What a custom ``MigrationStage`` works with: the rows of the old schema version to read,
/// and the new version's rows to write, insert and delete.
///
/// Reads see the store as it was before the stage. Writes go to the migrated rows (same
/// entity, same primary key, so the same ``ObjectID``, under the entity's new name); new
/// objects get fresh primary keys; deletes remove migrated rows. All of it becomes part of
/// the migration's one atomic transaction: a crash, or the stage throwing, leaves the store
/// as it was. Used only inside the stage's closure, on the opening thread.
///
/// When the stage returns, every required attribute and required to-one relationship must
/// hold a value, and every to-one relationship must point at an object that exists in the
/// new version (a deleted object's referrers must be deleted or pointed elsewhere too);
/// otherwise the migration fails with ``StrataError/Code/migrationFailed`` and writes nothing.
///
/// For example, splitting `Person{fullName, street, city}` into
/// `Person{firstName, lastName, address}` and `Address{street, city, people}`:
/// ```swift
/// .custom(from: "1", to: "2") { context in
///     var addresses: [String: Int64] = [:]
///     try context.forEachObject(of: "Person") { person in
///         guard case .string(let full) = try person.value(forKey: "fullName"), !full.isEmpty else {
///             return try context.delete(person)          // a placeholder row: dropped
///         }
///         let parts = full.split(separator: " ", maxSplits: 1).map(String.init)
///         try context.setValue(.string(parts[0]), forKey: "firstName", of: person)
///         try context.setValue(.string(parts.count > 1 ? parts[1] : ""), forKey: "lastName", of: person)
///         let street = try person.value(forKey: "street"), city = try person.value(forKey: "city")
///         let place = "\(street)|\(city)"
///         let address = try addresses[place] ?? context.insertObject(into: "Address", values: ["street": street, "city": city])
///         addresses[place] = address
///         try context.setValue(.int(address), forKey: "address", of: person)
///     }
/// }
/// ```
public final class MigrationContext {
    /// The schema the stage starts from.
    public let sourceSchema: Schema
    /// The schema the stage produces.
    public let destinationSchema: Schema

    let stage: String
    let batchSize: Int
    let progress: (@Sendable (MigrationProgress) -> Void)?
    let old: MigrationState
    let newLayouts: [EntityLayout]
    let mapping: SchemaMapping
    /// Per new entity: the rows written so far.
    private var written: [Int: EntityWrites] = [:]
    /// The next primary key per new entity (inserts take them in order).
    private var nextKeys: [Int64]

    /// What the stage did to one entity of the new version.
    private struct EntityWrites {
        var inserts: [Changeset.Insert] = []
        var updates: [Changeset.Update] = []
        /// Update index by primary key, so two writes to a row make one update.
        var updateIndex: [Int64: Int] = [:]
        var deleted: [Int64] = []
        var deletedKeys: Set<Int64> = []
    }

    init(stage: String, batchSize: Int, progress: (@Sendable (MigrationProgress) -> Void)?,
         old: MigrationState, destination: Schema, newLayouts: [EntityLayout], mapping: SchemaMapping,
         nextKeys: [Int64]) {
        self.stage = stage
        self.batchSize = batchSize
        self.progress = progress
        self.old = old
        sourceSchema = old.metadata.schema
        destinationSchema = destination
        self.newLayouts = newLayouts
        self.mapping = mapping
        self.nextKeys = nextKeys
    }

    /// What the stage wrote, as one changeset in the new version's layouts: deletes, updates
    /// of the rows kept, inserts.
    var changes: Changeset {
        var result = Changeset()
        for (target, writes) in written {
            var entity = Changeset.EntityChanges()
            entity.inserts = Changeset.Inserts(writes.inserts)
            entity.updates = writes.updates.filter { !writes.deletedKeys.contains($0.primaryKey) }
            entity.deletes = writes.deleted.map { .init(primaryKey: $0, expectedVersion: 0) }
            if !entity.isEmpty { result.entities[target] = entity }
        }
        return result
    }

    /// Calls `body` with every object of the old version's entity `entity`, in primary-key
    /// order, reporting progress after every batch.
    ///
    /// - Throws: `.unknownEntity` when the old schema has no such entity; whatever `body` throws.
    /// - Complexity: O(rows of the entity).
    public func forEachObject(of entity: String, _ body: (MigrationObject) throws -> Void) throws {
        guard let layout = old.layouts.first(where: { $0.entity.name == entity }) else {
            throw StrataError(.unknownEntity, "The schema being migrated from has no entity '\(entity)'; its entities are \(old.layouts.map(\.entity.name).joined(separator: ", ")).", entity: entity)
        }
        let table = old.tables[layout.index]
        var done = 0
        for chunk in table.chunks {
            let keys = chunk.primaryKeys
            for row in keys.indices {
                try body(MigrationObject(layout: layout, chunk: chunk, row: row, primaryKey: keys[row]))
                done += 1
                if done % batchSize == 0 || done == table.rowCount {
                    progress?(MigrationProgress(stage: stage, entity: entity, completed: done, total: table.rowCount))
                }
            }
        }
    }

    /// Sets the new version's `key` of the migrated `object`.
    ///
    /// - Parameters:
    ///   - value: a value of the new attribute's type, or for a to-one relationship the
    ///     destination's primary key (`.int`, as ``insertObject(into:values:)`` returns it) or `.null`.
    /// - Throws: `.unknownEntity` when the object's entity was removed; `.objectNotFound`
    ///   when the stage deleted it; `.unknownKey` or `.typeMismatch` as ``Entity/checkType(of:forKey:)``.
    public func setValue(_ value: AttributeValue, forKey key: String, of object: MigrationObject) throws {
        let target = try self.target(of: object)
        let layout = newLayouts[target]
        let property = try Self.property(key, of: layout, checking: value)
        var writes = written[target] ?? EntityWrites()
        if writes.deletedKeys.contains(object.primaryKey) {
            throw StrataError(.objectNotFound, "\(layout.entity.name) #\(object.primaryKey) was deleted earlier in this migration stage; it cannot be written.", entity: layout.entity.name, key: key)
        }
        if let at = writes.updateIndex[object.primaryKey] {
            writes.updates[at].values.removeAll { $0.property == property }
            writes.updates[at].values.append((property, value))
        } else {
            writes.updateIndex[object.primaryKey] = writes.updates.count
            writes.updates.append(.init(primaryKey: object.primaryKey, expectedVersion: 0, values: [(property, value)]))
        }
        written[target] = writes
    }

    /// Inserts a new object of the new version's entity `entity` and returns its primary
    /// key (its ``ObjectID``'s key): set it as a to-one relationship's value (`.int(key)`)
    /// to relate objects to it.
    ///
    /// Attributes not in `values` take their default (or nil); to-one relationships not in
    /// it are empty. To-many relationships are the inverse of a to-one: set the to-one side.
    ///
    /// For example:
    /// ```swift
    /// let address = try context.insertObject(into: "Address", values: ["street": street, "city": city])
    /// try context.setValue(.int(address), forKey: "address", of: person)
    /// ```
    ///
    /// - Throws: `.unknownEntity` when the new schema has no such entity; `.unknownKey` or
    ///   `.typeMismatch` for a value that does not fit.
    @discardableResult
    public func insertObject(into entity: String, values: [String: AttributeValue] = [:]) throws -> Int64 {
        guard let target = newLayouts.firstIndex(where: { $0.entity.name == entity }) else {
            throw StrataError(.unknownEntity, "The schema being migrated to has no entity '\(entity)'; its entities are \(newLayouts.map(\.entity.name).joined(separator: ", ")).", entity: entity)
        }
        let layout = newLayouts[target]
        var row = layout.properties.indices.map { p in
            layout.properties[p].type == nil ? AttributeValue.null : layout.entity.attributes[p].defaultValue
        }
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            row[try Self.property(key, of: layout, checking: value)] = value
        }
        let primaryKey = nextKeys[target]
        nextKeys[target] += 1
        var writes = written[target] ?? EntityWrites()
        writes.inserts.append(.init(primaryKey: primaryKey, values: row))
        written[target] = writes
        return primaryKey
    }

    /// Deletes the migrated `object` from the new version (its entity keeps the rest).
    ///
    /// Objects whose to-one relationships point at it must be deleted or pointed elsewhere
    /// in the same stage; delete rules do not run during a migration.
    ///
    /// - Throws: `.unknownEntity` when the object's entity was removed (its rows are gone anyway).
    public func delete(_ object: MigrationObject) throws {
        let target = try self.target(of: object)
        var writes = written[target] ?? EntityWrites()
        guard writes.deletedKeys.insert(object.primaryKey).inserted else { return }
        writes.deleted.append(object.primaryKey)
        written[target] = writes
    }

    /// The new version's entity index of `object`'s entity.
    private func target(of object: MigrationObject) throws -> Int {
        guard let target = mapping.entities.firstIndex(where: { $0.source == object.layout.index }) else {
            throw StrataError(.unknownEntity, "\(object.entityName) has no entity in the schema being migrated to; it was removed, so its rows cannot be written.", entity: object.entityName)
        }
        return target
    }

    /// The index of stored property `key` in `layout`, once `value` is checked to fit it.
    private static func property(_ key: String, of layout: EntityLayout, checking value: AttributeValue) throws -> Int {
        guard let property = layout.propertyIndex[key] else {
            throw StrataError(.unknownKey, "\(layout.entity.name) has no attribute or to-one relationship '\(key)' in the schema being migrated to.", entity: layout.entity.name, key: key)
        }
        if layout.properties[property].type != nil {
            try layout.entity.checkType(of: value, forKey: key)
        } else if !(value.isNull || { if case .int = value { return true } else { return false } }()) {
            throw StrataError(.typeMismatch, "\(layout.entity.name).\(key) is a to-one relationship: set the destination's primary key (.int) or .null.", entity: layout.entity.name, key: key)
        }
        return property
    }
}

/// A row of the old schema version, as a custom migration stage reads it.
public struct MigrationObject {
    let layout: EntityLayout
    let chunk: TableChunk
    let row: Int
    /// The object's primary key (kept by the migration, so its ``ObjectID`` is too).
    public let primaryKey: Int64

    /// The entity's name in the old version.
    public var entityName: String { layout.entity.name }

    /// The old version's value of `key`: an attribute's value, or for a to-one relationship
    /// the destination's primary key (`.int`) or `.null`.
    ///
    /// - Throws: `.unknownKey` when the old entity has no such attribute or to-one relationship.
    public func value(forKey key: String) throws -> AttributeValue {
        guard let property = layout.propertyIndex[key] else {
            throw StrataError(.unknownKey, "\(layout.entity.name) has no attribute or to-one relationship '\(key)' in the schema being migrated from.", entity: layout.entity.name, key: key)
        }
        return chunk.value(at: row, layout.columnAccess[property])
    }
}
