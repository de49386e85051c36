/// What a custom ``MigrationStage`` works with: the rows of the old schema version to read,
/// and the new version's values to write.
///
/// Reads see the store as it was before the stage; writes go to the migrated rows (same
/// entity, same primary key, the entity's new name), and become part of the migration's one
/// atomic transaction. Used only inside the stage's closure, on the opening thread.
///
/// For example:
/// ```swift
/// .custom(from: "1", to: "2") { context in
///     try context.forEachObject(of: "Person") { person in
///         guard case .string(let full) = try person.value(forKey: "fullName") else { return }
///         let parts = full.split(separator: " ", maxSplits: 1).map(String.init)
///         try context.setValue(.string(parts.first ?? ""), forKey: "firstName", of: person)
///         try context.setValue(.string(parts.dropFirst().first ?? ""), forKey: "lastName", of: person)
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
    var changes = Changeset()
    /// Per new entity: update index by primary key, so two writes to a row make one update.
    private var updateIndex: [Int: [Int64: Int]] = [:]

    init(stage: String, batchSize: Int, progress: (@Sendable (MigrationProgress) -> Void)?,
         old: MigrationState, destination: Schema, newLayouts: [EntityLayout], mapping: SchemaMapping) {
        self.stage = stage
        self.batchSize = batchSize
        self.progress = progress
        self.old = old
        sourceSchema = old.metadata.schema
        destinationSchema = destination
        self.newLayouts = newLayouts
        self.mapping = mapping
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
    ///     destination's primary key (`.int`) or `.null`.
    /// - Throws: `.unknownEntity` when the object's entity was removed; `.unknownKey` or
    ///   `.typeMismatch` as ``Entity/checkType(of:forKey:)``.
    public func setValue(_ value: AttributeValue, forKey key: String, of object: MigrationObject) throws {
        guard let target = mapping.entities.firstIndex(where: { $0.source == object.layout.index }) else {
            throw StrataError(.unknownEntity, "\(object.entityName) has no entity in the schema being migrated to; it was removed, so its rows cannot be written.", entity: object.entityName)
        }
        let layout = newLayouts[target]
        guard let property = layout.propertyIndex[key] else {
            throw StrataError(.unknownKey, "\(layout.entity.name) has no attribute or to-one relationship '\(key)' in the schema being migrated to.", entity: layout.entity.name, key: key)
        }
        if layout.properties[property].type != nil {
            try layout.entity.checkType(of: value, forKey: key)
        } else if !(value.isNull || { if case .int = value { return true } else { return false } }()) {
            throw StrataError(.typeMismatch, "\(layout.entity.name).\(key) is a to-one relationship: set the destination's primary key (.int) or .null.", entity: layout.entity.name, key: key)
        }
        var entityChanges = changes.entities[target] ?? Changeset.EntityChanges()
        if let at = updateIndex[target]?[object.primaryKey] {
            entityChanges.updates[at].values.removeAll { $0.property == property }
            entityChanges.updates[at].values.append((property, value))
        } else {
            updateIndex[target, default: [:]][object.primaryKey] = entityChanges.updates.count
            entityChanges.updates.append(.init(primaryKey: object.primaryKey, expectedVersion: 0, values: [(property, value)]))
        }
        changes.entities[target] = entityChanges
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
