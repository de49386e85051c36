import StrataStorage

extension PersistentStore {
    /// Opens the store in `directory` with the newest version of `migrationPlan`, migrating
    /// it from whatever version it has (creating it with the newest when it does not exist).
    ///
    /// The whole migration — every stage, lightweight and custom — is one log transaction:
    /// a crash at any point reopens to the old schema and data or to the new schema with all
    /// data migrated, and a stage that throws leaves the store as it was.
    ///
    /// - Throws: ``StrataError/Code/migrationRequired`` (with a ``MigrationRefusal``) when a
    ///   lightweight stage meets a change it cannot make, the plan is inconsistent, or the
    ///   store is opened read-only; ``StrataError/Code/migrationFailed`` when a custom stage
    ///   throws or leaves a required attribute empty; and everything
    ///   ``open(at:schema:options:)`` throws. Nothing is written when it throws.
    /// - Complexity: O(size of the snapshot + log replayed + rows the stages touch).
    public static func open(at directory: String, migrationPlan: MigrationPlan,
                            options: Options = Options()) throws -> PersistentStore {
        guard let newest = migrationPlan.versions.last else {
            throw StrataError(.migrationRequired, "The migration plan has no versions; list at least the application's schema.")
        }
        let ids = migrationPlan.versions.map(\.identifier)
        guard Set(ids).count == ids.count else {
            throw StrataError(.migrationRequired, "The migration plan lists a version identifier twice (\(ids.joined(separator: ", "))); give each version its own.")
        }
        for version in migrationPlan.versions { _ = try version.schema.validated() }
        for stage in migrationPlan.stages {
            guard let from = ids.firstIndex(of: stage.from), let to = ids.firstIndex(of: stage.to), to > from else {
                throw StrataError(.migrationRequired, "The migration stage \(stage.from) → \(stage.to) does not go from one version of the plan to a later one (versions: \(ids.joined(separator: ", "))).")
            }
        }
        let (engine, recovered) = try StorageEngine.open(at: directory, options: options.storage)
        do {
            return try load(directory: directory, schema: newest.schema, plan: migrationPlan, options: options,
                            engine: engine, recovered: recovered)
        } catch {
            try? engine.close()
            throw error
        }
    }

    /// Every difference between this store's schema and `schema`, as a migration to it would
    /// see them, with the rows each touches (the inspector's `migrate --dry-run`).
    ///
    /// - Complexity: O(entities × properties).
    public func migrationChanges(to schema: Schema) -> [SchemaChange] {
        schema.migrationChanges(from: self.schema, rowCounts: rowCounts)
    }

    /// Whether a change alters what is stored (so the store records a migration), rather
    /// than only defaults, validation or delete rules.
    static func needsRecord(_ change: SchemaChange) -> Bool {
        ![.attributeDefaultChanged, .attributeValidationChanged, .relationshipDeleteRuleChanged].contains(change.kind)
    }

    /// The migration steps that bring `state` to `appSchema` (through `plan` when there is
    /// one), applied to `state` as transaction `lsn` would; empty when nothing is to be done.
    static func migrationSteps(_ state: inout MigrationState, to appSchema: Schema, plan: MigrationPlan?,
                               options: Options, directory: String, lsn: UInt64) throws -> [MigrationRecord.Step] {
        let stored = state.metadata.schema
        func refuse(_ changes: [SchemaChange], _ why: String) -> StrataError {
            var message = "The store at \(directory) was not migrated, and nothing was written: \(why)"
            for change in changes { message += "\n- \(change)" }
            let entities = Set(changes.filter { !$0.isLightweight }.map(\.entity))
            return StrataError(.migrationRequired, message, entity: entities.count == 1 ? entities.first : nil,
                               cause: MigrationRefusal(changes: changes))
        }
        func rowCounts() -> [String: Int] {
            Dictionary(uniqueKeysWithValues: state.layouts.map { ($0.entity.name, state.tables[$0.index].rowCount) })
        }
        guard let plan else {
            let changes = appSchema.migrationChanges(from: stored, rowCounts: rowCounts())
            guard changes.contains(where: needsRecord) else { return [] }
            let blocking = changes.filter { !$0.isLightweight }
            if !blocking.isEmpty {
                throw refuse(changes, "\(blocking.count) of its \(changes.count) schema changes need a custom migration stage (a MigrationPlan with MigrationStage.custom); or open the store with its own schema (`strata schema STORE --json` prints it).")
            }
            guard options.lightweightMigration else {
                throw refuse(changes, "the schema changed and Options.lightweightMigration is off; turn it on to migrate.")
            }
            guard !options.isReadOnly else {
                throw refuse(changes, "the store was opened read-only; open it writable to migrate it.")
            }
            return [try step(&state, to: appSchema, label: "", body: .lightweight, plan: nil, lsn: lsn, directory: directory, refuse: refuse)]
        }
        let versions = plan.versions
        func matches(_ version: MigrationPlan.Version) -> Bool {
            !version.schema.withoutOriginalNames.migrationChanges(from: stored).contains(where: needsRecord)
        }
        let label = state.metadata.history.last { !$0.label.isEmpty }?.label
        guard var current = versions.firstIndex(where: { $0.identifier == label && matches($0) })
                ?? versions.lastIndex(where: matches) else {
            throw refuse(appSchema.migrationChanges(from: stored, rowCounts: rowCounts()),
                         "its schema is none of the migration plan's versions (\(versions.map(\.identifier).joined(separator: ", "))); these are its differences from the newest:")
        }
        var steps: [MigrationRecord.Step] = []
        while current < versions.count - 1 {
            let stage = plan.stages.first { $0.from == versions[current].identifier }
            let target = stage.flatMap { stage in versions.firstIndex { $0.identifier == stage.to } } ?? current + 1
            if options.isReadOnly {
                throw refuse(versions[target].schema.migrationChanges(from: state.metadata.schema, rowCounts: rowCounts()),
                             "the store is at version \(versions[current].identifier) and was opened read-only; open it writable to migrate it to \(versions.last!.identifier).")
            }
            steps.append(try step(&state, to: versions[target].schema, label: versions[target].identifier,
                                  body: stage?.body ?? .lightweight, plan: plan, lsn: lsn, directory: directory, refuse: refuse))
            current = target
        }
        return steps
    }

    /// One step to `target`, applied to `state`.
    private static func step(_ state: inout MigrationState, to target: Schema, label: String, body: MigrationStage.Body,
                             plan: MigrationPlan?, lsn: UInt64, directory: String,
                             refuse: ([SchemaChange], String) -> StrataError) throws -> MigrationRecord.Step {
        let rowCounts = Dictionary(uniqueKeysWithValues: state.layouts.map { ($0.entity.name, state.tables[$0.index].rowCount) })
        let previous = state.metadata.schema
        let planner = MigrationPlanner(old: previous, new: target, rowCounts: rowCounts)
        let changes = planner.changes
        let schema = target.withoutOriginalNames
        try checkSupported(schema)
        var step = MigrationRecord.Step(metadata: StoreMetadata(storeID: state.metadata.storeID, schema: schema, nextPrimaryKeys: []),
                                        mapping: planner.mapping, changes: [], label: label, summary: changes.map(\.summary))
        switch body {
        case .lightweight:
            let blocking = changes.filter { !$0.isLightweight }
            if !blocking.isEmpty {
                throw refuse(changes, "\(blocking.count) of the \(changes.count) changes\(label.isEmpty ? "" : " to version \(label)") need a custom migration stage:")
            }
            try state.apply(step, lsn: lsn)
        case .custom(let batchSize, let migrate):
            let before = state
            var mapped = state
            try mapped.apply(step, lsn: lsn)
            let context = MigrationContext(stage: label, batchSize: batchSize, progress: plan?.progress, old: before,
                                           destination: schema, newLayouts: mapped.layouts, mapping: planner.mapping,
                                           nextKeys: mapped.metadata.nextPrimaryKeys)
            do {
                try migrate(context)
            } catch {
                throw StrataError(.migrationFailed, "The custom migration stage to version \(label) failed, and the store was left as it was: \(error)", cause: error)
            }
            let written = context.changes
            if !written.isEmpty { step.changes = ChangesetCodec.encode(written) }
            state = before
            do {
                try state.apply(step, lsn: lsn)
            } catch {
                throw StrataError(.migrationFailed, "The custom migration stage to version \(label) wrote values that do not fit the new schema (\(error)); the store was left as it was.")
            }
            let problems = state.integrityProblems(baseline: mapped)
            if !problems.isEmpty {
                state = before
                throw StrataError(.migrationFailed, "The custom migration stage to version \(label) left the new version broken: \(problems.joined(separator: "; ")). Set the values in the stage (context.setValue), give attributes a default, or delete the rows. The store was left as it was.")
            }
        }
        try state.refuseDuplicates(addedSince: previous, directory: directory)
        return step
    }
}

extension PersistentStore {
    /// The schema versions this store has been through, oldest first: the transaction that
    /// created it, then each migration, with its LSN, version label and changes. A store
    /// whose snapshot predates schema history starts with the first migration after it.
    public var schemaHistory: [SchemaHistoryEntry] { schemaHistoryStorage.withLock { $0 } }
}
