/// The schema versions of an application, oldest first, and the stages between them: what
/// ``PersistentStore/open(at:migrationPlan:options:)`` uses to bring a store of any older
/// version up to the newest one (GRDB's `DatabaseMigrator`, SwiftData's
/// `SchemaMigrationPlan`).
///
/// Opening finds the store's version (the label its history records, else the newest
/// version whose stored shape equals the store's), then runs, in order, the stage that
/// starts at that version (a lightweight migration to the next version when none does),
/// and so on up to the newest. All of it is one atomic transaction: a crash or a throwing
/// stage leaves the store as it was.
///
/// For example:
/// ```swift
/// let plan = MigrationPlan(versions: [
///     .init("1", v1), .init("2", v2), .init("3", v3),
/// ], stages: [
///     .lightweight(from: "1", to: "2"),
///     .custom(from: "2", to: "3") { context in
///         try context.forEachObject(of: "Person") { person in
///             let parts = (person["fullName"].stringValue ?? "").split(separator: " ", maxSplits: 1)
///             try context.setValue(.string(String(parts.first ?? "")), forKey: "firstName", of: person)
///             try context.setValue(.string(parts.count > 1 ? String(parts[1]) : ""), forKey: "lastName", of: person)
///         }
///     },
/// ])
/// let store = try PersistentStore.open(at: path, migrationPlan: plan)
/// ```
public struct MigrationPlan: Sendable {
    /// One schema version: an identifier (recorded in the store's history) and its schema.
    public struct Version: Sendable {
        /// The identifier, such as `"2"` or `"2.1.0"`; unique within the plan.
        public var identifier: String
        /// The schema of this version.
        public var schema: Schema
        /// Creates a version.
        public init(_ identifier: String, _ schema: Schema) {
            self.identifier = identifier
            self.schema = schema
        }
    }

    /// The versions, oldest first; the last is the application's.
    public var versions: [Version]
    /// The stages, each from one version to a later one.
    public var stages: [MigrationStage]
    /// Called after each batch of a custom stage (on the opening thread).
    public var progress: (@Sendable (MigrationProgress) -> Void)?

    /// Creates a plan.
    public init(versions: [Version], stages: [MigrationStage] = [],
                progress: (@Sendable (MigrationProgress) -> Void)? = nil) {
        self.versions = versions
        self.stages = stages
        self.progress = progress
    }
}

/// A step of a ``MigrationPlan``: lightweight (inferred from the two schemas) or custom (app
/// code that reads the old version's values and writes the new version's).
public struct MigrationStage: Sendable {
    enum Body: Sendable {
        case lightweight
        case custom(batchSize: Int, migrate: @Sendable (MigrationContext) throws -> Void)
    }

    /// The identifier of the version the stage starts from.
    public var from: String
    /// The identifier of the version it produces.
    public var to: String
    let body: Body

    /// A stage that infers the migration from the two schemas; it refuses the changes a
    /// lightweight migration cannot make (see ``Schema/migrationChanges(from:rowCounts:)``).
    public static func lightweight(from: String, to: String) -> MigrationStage {
        MigrationStage(from: from, to: to, body: .lightweight)
    }

    /// A stage that runs `migrate` once the structural part is done: entities and attributes
    /// are matched as in a lightweight migration (by name or `originalName`), columns whose
    /// values cannot be carried over (a type that is not a widening, a new required attribute
    /// without a default) start as nil, and `migrate` fills them in from the old values. Every
    /// required attribute must hold a value afterwards.
    ///
    /// - Parameters:
    ///   - batchSize: rows per batch of ``MigrationContext/forEachObject(of:_:)`` (progress is
    ///     reported after each).
    ///   - migrate: the app's code; when it throws, the store is left as it was and opening
    ///     fails with ``StrataError/Code/migrationFailed``.
    public static func custom(from: String, to: String, batchSize: Int = 1024,
                              migrate: @escaping @Sendable (MigrationContext) throws -> Void) -> MigrationStage {
        MigrationStage(from: from, to: to, body: .custom(batchSize: max(1, batchSize), migrate: migrate))
    }
}

/// How far a custom stage has got: rows of one entity visited so far.
public struct MigrationProgress: Sendable, Hashable {
    /// The stage's target version.
    public var stage: String
    /// The entity being read (its old name).
    public var entity: String
    /// Rows of it visited so far.
    public var completed: Int
    /// Rows it has.
    public var total: Int
}
