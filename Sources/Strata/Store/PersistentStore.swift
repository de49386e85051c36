public import Foundation
public import StrataStorage
import Synchronization

/// A store directory opened for use: the committed state in memory as immutable versions,
/// persisted to the write-ahead log and snapshots.
///
/// Contexts read a pinned version without blocking writers; a commit builds the next version
/// by copying only the chunks it touches, logs it as one transaction, then publishes it.
/// Under `Durability.always` (the default) a save returns only once it is on stable storage.
///
/// For example:
/// ```swift
/// let store = try PersistentStore.open(at: "/var/lib/todo.strata", schema: schema)
/// let context = ObjectContext(store: store)
/// ```
///
/// One process may open a store for writing at a time; a second gets `StorageError` with
/// code `.locked`. Any number may open it read-only (``Options/readOnly``).
public final class PersistentStore: Sendable {
    struct WriterState: Sendable {
        var head: StoreVersion
        var nextPrimaryKeys: [Int64]
        var checkpointRunning = false
        var lastSnapshotSize: Int64 = 0
    }

    /// The store directory.
    public let directory: String
    /// The store's permanent identity (part of every ``ObjectID``).
    public let storeID: UUID
    /// The schema stored in the store (the one its columns follow).
    public let schema: Schema
    /// What opening the store found and did.
    public let recoveryReport: RecoveryReport
    /// The options it was opened with.
    public let options: Options
    /// The schema saves are validated against: the application's (with its custom rules)
    /// when one was given at open, else the stored one.
    public let validationSchema: Schema

    let layouts: [EntityLayout]
    let layoutIndex: [String: Int]
    let engine: StorageEngine
    let writer: Locked<WriterState>
    let published: Locked<StoreVersion>
    /// The LSN of the version in `published`, stored under its lock with each publish and
    /// readable without it: a reader holding the version with this LSN knows, with one load,
    /// that it still holds the newest (LSNs of published versions only grow).
    let publishedLSN: Atomic<UInt64>
    let observers = Locked<[UUID: @Sendable (StoreChange) -> Void]>([:])
    /// The store's main-queue context, made on first use on the main actor (see
    /// ``mainContext``).
    let mainContextSlot = MainContextSlot()
    /// Per layout, the stored property values a newly inserted object starts with: each
    /// attribute's default in ``validationSchema`` (else in the stored schema), else null.
    let insertDefaults: [[AttributeValue]]
    /// Per layout, the interned store-and-entity pair its objects' IDs hold.
    let idEntities: [ObjectIDEntity]
    /// The schema versions the store has been through (set once by the open).
    let schemaHistoryStorage = Locked<[SchemaHistoryEntry]>([])
    /// How a read-only store follows the writer's log (see ``refresh()``).
    let following = StoreFollowing()
    /// Persistent history, when the store keeps it (``Options/persistentHistory``).
    let historyLog: HistoryLog?
    /// The snapshot chunk that failed its first decode, if one has: every read and write of
    /// the store checks it (see ``SnapshotDamage``).
    let snapshotDamage: SnapshotDamage

    init(directory: String, storeID: UUID, schema: Schema, validationSchema: Schema, report: RecoveryReport,
         options: Options, layouts: [EntityLayout], engine: StorageEngine, version: StoreVersion,
         nextPrimaryKeys: [Int64], history: HistoryLog? = nil, damage: SnapshotDamage = SnapshotDamage()) {
        historyLog = history
        snapshotDamage = damage
        self.directory = directory
        self.storeID = storeID
        self.schema = schema
        self.validationSchema = validationSchema
        self.recoveryReport = report
        self.options = options
        self.layouts = layouts
        layoutIndex = Dictionary(uniqueKeysWithValues: layouts.map { ($0.entity.name, $0.index) })
        insertDefaults = layouts.map { layout in
            let entity = validationSchema.entity(named: layout.entity.name) ?? layout.entity
            return layout.properties.map { entity.attribute(named: $0.name)?.defaultValue ?? .null }
        }
        idEntities = layouts.map { ObjectIDEntity.interned(storeID: storeID, entityName: $0.entity.name) }
        self.engine = engine
        writer = Locked(WriterState(head: version, nextPrimaryKeys: nextPrimaryKeys))
        published = Locked(version)
        publishedLSN = Atomic(version.lsn)
    }

    /// Whether the store refuses writes (opened read-only, or after a write error).
    public var isReadOnly: Bool { engine.isReadOnly || engine.failure != nil }

    /// The LSN of the newest published transaction.
    public var lastLSN: UInt64 { publishedLSN.load(ordering: .acquiring) }

    /// The newest published version (pinned by the caller for as long as it reads it).
    var currentVersion: StoreVersion { published.withLock { $0 } }

    /// Makes `version` the newest published one, unless a newer one already is.
    func publish(_ version: StoreVersion) {
        published.withLock {
            guard version.lsn > $0.lsn else { return }
            $0 = version
            publishedLSN.store(version.lsn, ordering: .releasing)
        }
    }

    /// The writer's head: the published version plus commits still waiting for durability.
    /// Commits check their expected row versions against it, so resolving a conflict must
    /// read it too (the published version may not show the row that caused the conflict yet).
    var headVersion: StoreVersion { writer.withLock { $0.head } }

    /// The layout of the entity called `name`, or an `unknownEntity` error naming the
    /// nearest entity.
    func layout(named name: String) throws(StrataError) -> EntityLayout {
        // Contexts ask once per inserted object. With a few entities, comparing names (short
        // ones compare as two words) costs less than hashing one.
        if layouts.count <= 8 {
            for layout in layouts where layout.entity.name == name { return layout }
        } else if let index = layoutIndex[name] {
            return layouts[index]
        }
        let suggestion = Schema.nearestName(to: name, among: layouts.map(\.entity.name))
        throw StrataError(.unknownEntity, "The store has no entity named '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? ".") + " Its entities are: \(layouts.map(\.entity.name).joined(separator: ", ")).", entity: name)
    }

    /// Reserves `count` new primary keys for the entity at `index`.
    func allocatePrimaryKeys(entity index: Int, count: Int) -> ClosedRange<Int64> {
        writer.withLock { state in
            let first = state.nextPrimaryKeys[index]
            state.nextPrimaryKeys[index] += Int64(count)
            return first...(first + Int64(max(count, 1)) - 1)
        }
    }

    /// The row count of every entity in the newest version, by entity name.
    public var rowCounts: [String: Int] {
        let version = currentVersion
        return Dictionary(uniqueKeysWithValues: layouts.map { ($0.entity.name, version.tables[$0.index].rowCount) })
    }

    /// Registers `handler` to be called (on the committing thread) after every transaction
    /// is durable. Keep the token; observation stops when it is cancelled or released.
    public func observeChanges(_ handler: @escaping @Sendable (StoreChange) -> Void) -> ObservationToken {
        let id = UUID()
        observers.withLock { $0[id] = handler }
        return ObservationToken { [weak self] in _ = self?.observers.withLock { $0.removeValue(forKey: id) } }
    }

    /// Every committed transaction's changes, from now on, as an asynchronous sequence.
    public var changes: AsyncStream<StoreChange> {
        let (stream, continuation) = AsyncStream<StoreChange>.makeStream(bufferingPolicy: .unbounded)
        let token = observeChanges { continuation.yield($0) }
        continuation.onTermination = { _ in token.cancel() }
        return stream
    }

    /// Flushes the log and releases the writer lock. The store cannot be used afterwards.
    public func close() throws {
        following.stop()
        do { try historyLog?.close() } catch {
            try? engine.close()
            throw error
        }
        try engine.close()
    }

    func notify(_ change: StoreChange) {
        let handlers = observers.withLock { Array($0.values) }
        for handler in handlers { handler(change) }
    }
}

/// Keeps an observation alive; ``cancel()`` or releasing it stops the observation.
public final class ObservationToken: Sendable {
    private let onCancel: Locked<(@Sendable () -> Void)?>

    init(_ onCancel: @escaping @Sendable () -> Void) { self.onCancel = Locked(onCancel) }

    /// Stops the observation.
    public func cancel() {
        let action = onCancel.withLock { value -> (@Sendable () -> Void)? in
            defer { value = nil }
            return value
        }
        action?()
    }

    deinit { cancel() }
}
