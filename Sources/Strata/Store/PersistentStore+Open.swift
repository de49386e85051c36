import Foundation
import StrataStorage

extension PersistentStore {
    /// Opens the store in `directory`, creating it with `schema` when it does not exist.
    ///
    /// - Parameters:
    ///   - directory: the store's directory; created (owner-only) when it does not exist.
    ///   - schema: the application's schema. When it stores something the stored schema does
    ///     not, the store is migrated first, as one atomic transaction, if a lightweight
    ///     migration can do it (see <doc:MigratingAStore>); differences in defaults,
    ///     validation and delete rules need no migration. `nil` opens the store with its
    ///     stored schema (tools do this) but cannot create a new store.
    ///   - options: durability, checkpoint policy, read-only, recovery mode, whether to
    ///     migrate (``Options/lightweightMigration``).
    /// - Throws: `StrataError` `.migrationRequired` (nothing written) listing every
    ///   difference when one needs a custom stage, migration is off or the open is
    ///   read-only; `.schemaMismatch` when a new store is opened without a schema;
    ///   `StorageError` (`locked`, `corrupted`, `notAStore`, `unsupportedFormat`, `io`,
    ///   `diskFull`; for encryption `wrongKey`, `encryptionKeyRequired`, `notEncrypted`, and
    ///   `invalidArgument` when persistent history is asked of an encrypted store).
    /// - Complexity: O(size of the snapshot + log replayed).
    public static func open(at directory: String, schema: Schema? = nil,
                            options: Options = Options()) throws -> PersistentStore {
        let validatedSchema = try schema?.validated()
        if options.storage.cipher != nil && options.persistentHistory != nil {
            // History segments hold entity and property names and row keys, unencrypted.
            throw StorageError(.invalidArgument, "Persistent history is not encrypted yet: open an encrypted store without options.persistentHistory. Nothing was changed.", file: directory)
        }
        let (engine, recovered) = try StorageEngine.open(at: directory, options: options.storage)
        do {
            let store = try load(directory: directory, schema: validatedSchema, options: options,
                                 engine: engine, recovered: recovered)
            if let interval = options.followInterval { store.startFollowing(every: interval) }
            if options.prefetchesSnapshot { SnapshotLoader.prefetch(store.currentVersion) }
            return store
        } catch {
            try? engine.close()
            throw error
        }
    }

    /// Builds the store from what recovery found: the snapshot's chunks (undecoded, each
    /// reporting a failed first decode to `damage`), the log replayed on them, and the
    /// migration to `appSchema` when one is needed.
    ///
    /// - Throws: the damage of a chunk that failed to decode while the replay or the migration
    ///   read it, rather than what that read led to; nothing is written then.
    static func load(directory: String, schema appSchema: Schema?, plan: MigrationPlan? = nil, options: Options,
                     engine: StorageEngine, recovered: RecoveredState,
                     damage: SnapshotDamage = SnapshotDamage()) throws -> PersistentStore {
        do {
            let store = try loadReplaying(directory: directory, schema: appSchema, plan: plan, options: options,
                                          engine: engine, recovered: recovered, damage: damage)
            try damage.check()
            return store
        } catch {
            try damage.check()
            throw error
        }
    }

    private static func loadReplaying(directory: String, schema appSchema: Schema?, plan: MigrationPlan?, options: Options,
                                      engine: StorageEngine, recovered: RecoveredState,
                                      damage: SnapshotDamage) throws -> PersistentStore {
        func corrupt(_ what: String, _ error: any Error) -> StorageError {
            StorageError(.corrupted, "\(what) in \(directory) does not decode (\(error)). Restore from a backup.", file: directory)
        }
        var metadata: StoreMetadata?
        var tables: [EntityTable] = []
        var layouts: [EntityLayout] = []
        func adopt(_ stored: StoreMetadata) throws {
            try checkSupported(stored.schema)
            layouts = stored.schema.entities.enumerated().map { EntityLayout(entity: $1, index: $0, schema: stored.schema) }
            metadata = stored
            if metadata!.nextPrimaryKeys.count != layouts.count {
                metadata!.nextPrimaryKeys = Array(repeating: 1, count: layouts.count)
            }
        }
        if let snapshot = recovered.snapshot {
            do { try adopt(try StoreMetadata(decoding: snapshot.metadata)) }
            catch let error as StrataError { throw error }
            catch { throw corrupt("The snapshot's store metadata", error) }
            let tableMap = try snapshot.tables.map { table -> Int in
                guard let index = layouts.firstIndex(where: { $0.table == table }) else {
                    throw corrupt("Snapshot table \(table.name)", PayloadError("its columns do not match the stored schema"))
                }
                return index
            }
            let chunksByTable = try SnapshotLoader.lazyChunks(snapshot, tables: layouts.count, tableMap: tableMap, damage: damage)
            tables = layouts.map { EntityTable(layout: $0, chunks: chunksByTable[$0.index]) }
        }
        var version = StoreVersion(lsn: recovered.snapshot?.lsn ?? 0, tables: tables)
        // Persistent history: the log's transactions that history lacks (not yet written out
        // when the process stopped) are added from the replay below.
        let history = try openHistory(directory: directory, options: options, engine: engine)
        let historyFrom = history?.lastLSN ?? .max
        for original in recovered.records {
            let record = original
            do {
                let (record, author) = try AuthoredPayload.split(original)
                var groups: [HistoryEntry.Group] = []
                switch TransactionKind(rawValue: record.kind) {
                case .metadata?:
                    if metadata == nil {
                        var created = try StoreMetadata(decoding: record.payload)
                        // The store's first version is the one this frame records.
                        created.history = [SchemaHistoryEntry(lsn: record.lsn, label: created.history.first?.label ?? "", changes: [])]
                        try adopt(created)
                        version.tables = layouts.map { EntityTable(layout: $0) }
                    }
                case .migration?:
                    guard metadata != nil else { throw PayloadError("a migration before the store's metadata") }
                    var state = MigrationState(metadata: metadata!, layouts: layouts, tables: version.tables)
                    for step in try MigrationRecord(decoding: record.payload).steps {
                        try checkSupported(step.metadata.schema)
                        try state.apply(step, lsn: record.lsn)
                    }
                    (metadata, layouts, version.tables) = (state.metadata, state.layouts, state.tables)
                case .save?, .batchInsert?:
                    guard metadata != nil else { throw PayloadError("a save before the store's metadata") }
                    let changes = try ChangesetCodec.decode(record.payload, layouts: layouts)
                    if record.lsn > historyFrom { groups = HistoryEntry.groups(changes, layouts: layouts) }
                    try apply(changes, to: &version, lsn: record.lsn, nextKeys: &metadata!.nextPrimaryKeys)
                case .batchUpdate?:
                    guard metadata != nil else { throw PayloadError("a batch update before the store's metadata") }
                    let batch = try BatchUpdateRecord(decoding: record.payload)
                    try apply(batch, to: &version, lsn: record.lsn)
                    if record.lsn > historyFrom { groups = HistoryEntry.groups(batch, layouts: layouts) }
                case .batchDelete?:
                    guard metadata != nil else { throw PayloadError("a batch delete before the store's metadata") }
                    let batch = try BatchDeleteRecord(decoding: record.payload)
                    try apply(batch, to: &version, lsn: record.lsn)
                    if record.lsn > historyFrom { groups = HistoryEntry.groups(batch, layouts: layouts) }
                default:
                    throw PayloadError("unknown transaction kind \(record.kind)")
                }
                if let history, record.lsn > historyFrom, let kind = TransactionKind(rawValue: record.kind), kind != .metadata {
                    history.append(lsn: record.lsn, timestamp: record.timestamp,
                                   payload: HistoryEntry(kind: kind, author: author, groups: groups).encoded())
                }
            } catch let error as StrataError {
                throw error
            } catch {
                throw StorageError(.corrupted, "Transaction \(record.lsn) in \(record.segment) at byte \(record.offset) does not decode (\(error)). Open with recovery mode .pointInTime is no help here: the frame's checksum is valid, so the writer produced it; report a bug and restore from a backup.", file: "\(directory)/\(record.segment)", offset: record.offset, lastGoodLSN: record.lsn - 1)
            }
            version = StoreVersion(lsn: record.lsn, tables: version.tables)
        }
        if let appSchema, let current = metadata {
            var state = MigrationState(metadata: current, layouts: layouts, tables: version.tables)
            let steps = try migrationSteps(&state, to: appSchema, plan: plan, options: options, directory: directory,
                                           lsn: version.lsn + 1)
            if !steps.isEmpty {
                // Nothing migrated from a chunk that failed to decode is written.
                try damage.check()
                let lsn = try engine.append(kind: TransactionKind.migration.rawValue, payload: MigrationRecord(steps: steps).encoded())
                guard lsn == version.lsn + 1 else {
                    throw StorageError(.corrupted, "The migration was logged as transaction \(lsn), but the store's last transaction was \(version.lsn); reopen the store.", file: directory)
                }
                (metadata, layouts) = (state.metadata, state.layouts)
                version = StoreVersion(lsn: lsn, tables: state.tables)
                history?.append(lsn: lsn, timestamp: now(),
                                payload: HistoryEntry(kind: .migration, author: nil, groups: []).encoded())
            }
        }
        if metadata == nil {
            if let appSchema { try checkSupported(appSchema) }
            guard let appSchema else {
                let report = recovered.report
                if report.tornTail != nil || report.removedFiles.contains(where: { StoreFileNames.segmentLSN($0) != nil }) {
                    throw StorageError(.corrupted, "The store at \(directory) has no schema left: recovery cut its log before the first transaction (\(report.tornTail.map { "torn tail in \($0.file) at byte \($0.offset)" } ?? "a segment with an unreadable header")). Either its creation was interrupted before anything was saved, or it is damaged: restore it from a backup, or delete the directory if it was never used.", file: directory, lastGoodLSN: 0)
                }
                throw StrataError(.schemaMismatch, "The store at \(directory) is new and empty; creating a store needs a schema.")
            }
            var created = StoreMetadata(storeID: UUID(), schema: appSchema.withoutOriginalNames, nextPrimaryKeys: Array(repeating: 1, count: appSchema.entities.count))
            if let label = plan?.versions.last?.identifier {
                created.history = [SchemaHistoryEntry(lsn: 1, label: label, changes: [])]
            }
            try adopt(created)
            let lsn = try engine.append(kind: TransactionKind.metadata.rawValue, payload: created.encoded(includingKeys: false))
            if metadata!.history.isEmpty || metadata!.history[0].lsn != lsn {
                metadata!.history = [SchemaHistoryEntry(lsn: lsn, label: plan?.versions.last?.identifier ?? "", changes: [])]
            }
            version = StoreVersion(lsn: lsn, tables: layouts.map { EntityTable(layout: $0) })
        }
        let store = PersistentStore(directory: directory, storeID: metadata!.storeID, schema: metadata!.schema,
                               validationSchema: appSchema ?? metadata!.schema, report: recovered.report, options: options, layouts: layouts, engine: engine,
                               version: version, nextPrimaryKeys: metadata!.nextPrimaryKeys, history: history,
                               damage: damage)
        store.schemaHistoryStorage.withLock { $0 = metadata!.history }
        return store
    }

    /// Refuses what this version of the store cannot keep, rather than losing it silently.
    static func checkSupported(_ schema: Schema) throws(StrataError) {
        for entity in schema.entities {
            for relationship in entity.relationships where relationship.isToMany {
                let inverse = schema.entity(named: relationship.destination)?.relationship(named: relationship.inverse)
                if inverse?.isToMany == true {
                    throw StrataError(.invalidSchema, "\(entity.name).\(relationship.name) and \(relationship.destination).\(relationship.inverse) form a many-to-many relationship, which this version of Strata cannot store yet. Model it with an intermediate entity that has a to-one relationship to each side.", entity: entity.name, key: relationship.name)
                }
            }
        }
    }

    /// Applies a decoded transaction to `version` (replay and commit share this).
    static func apply(_ changes: Changeset, to version: inout StoreVersion, lsn: UInt64,
                      nextKeys: inout [Int64]) throws {
        for (index, entityChanges) in changes.entities {
            var editor = TableEditor(table: version.tables[index])
            try editor.apply(entityChanges, version: lsn)
            version.tables[index] = editor.table
            if !entityChanges.inserts.isEmpty {
                nextKeys[index] = max(nextKeys[index], entityChanges.inserts.largestKey + 1)
            }
        }
    }
}

/// Turns a snapshot's chunks into table chunks that decode on first read.
///
/// When recovery could fall back from a damaged snapshot (an older snapshot, or a log from the
/// first transaction), it has already read every chunk and verified its header and checksum
/// (`verifyChecksums(deferringAuthentication: true, keepingImage: false)`), so a damaged
/// snapshot was skipped for the fallback; otherwise it read no chunk
/// (`StorageOptions.verifiesSnapshotAtOpen`). Open never keeps the chunks in memory,
/// authenticates and decrypts them (an encrypted snapshot), decompresses or decodes them. Each
/// chunk keeps its row count and key range (from the footer's statistics) and a reference to
/// the snapshot's chunk source, which reads the chunk from the open file at its first decode
/// and verifies it (its checksum, and its tag when encrypted) before decoding it; a
/// chunk that fails its first decode reports to the store's ``SnapshotDamage``.
enum SnapshotLoader {
    /// The chunks of each of `tables` tables, in key order: snapshot table `t`'s chunks are
    /// table `tableMap[t]`'s.
    static func lazyChunks(_ snapshot: SnapshotReader, tables: Int, tableMap: [Int], damage: SnapshotDamage) throws -> [[TableChunk]] {
        var chunksByTable = [[TableChunk]](repeating: [], count: tables)
        guard !snapshot.chunks.isEmpty else { return chunksByTable }
        guard let source = snapshot.takeVerifiedChunks() else {
            // Recovery always verifies the snapshot it hands over; a reader that was not
            // verified is read and checked here, chunk by chunk, as before.
            for index in snapshot.chunks.indices {
                chunksByTable[tableMap[snapshot.chunks[index].table]].append(TableChunk(columns: try snapshot.readChunk(index)))
            }
            return chunksByTable
        }
        let locks = DecodeLocks()
        if tables == 1 { chunksByTable[0].reserveCapacity(source.chunks.count) }
        for index in source.chunks.indices {
            chunksByTable[tableMap[source.chunks[index].table]].append(TableChunk(source: source, index: index, damage: damage, locks: locks))
        }
        return chunksByTable
    }

    /// Decodes every undecoded chunk of `version` on a utility-priority background queue,
    /// on both cores (`Options.prefetchesSnapshot`). A chunk that fails records the store's
    /// damage (``SnapshotDamage``), which the next operation on the store throws.
    static func prefetch(_ version: StoreVersion) {
        DispatchQueue.global(qos: .utility).async { version.readEveryChunk() }
    }
}

extension StoreVersion {
    /// Decodes every chunk of this version not decoded yet (chunks of the snapshot the store
    /// opened with that nobody has read), on every core, and returns when all are. A chunk
    /// that fails records the store's damage (``SnapshotDamage``).
    func readEveryChunk() {
        let chunks = tables.flatMap { $0.chunks.filter { $0.decoded.load() == nil } }
        guard !chunks.isEmpty else { return }
        _ = ParallelChunks.map(chunks.count, threads: ProcessInfo.processInfo.activeProcessorCount) { _ = chunks[$0].loaded }
    }
}
