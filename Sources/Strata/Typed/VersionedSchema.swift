extension Schema {
    /// A schema version number, as SwiftData writes it: `Schema.Version(2, 0, 0)`.
    public struct Version: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The major number.
        public var major: Int
        /// The minor number.
        public var minor: Int
        /// The patch number.
        public var patch: Int

        /// Creates a version number.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        /// Orders by major, then minor, then patch.
        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        /// `"major.minor.patch"`: the label the store's history records.
        public var description: String { "\(major).\(minor).\(patch)" }
    }
}

/// One version of an application's `@Model` classes (SwiftData's `VersionedSchema`).
///
/// For example:
/// ```swift
/// enum LibraryV1: VersionedSchema {
///     static let versionIdentifier = Schema.Version(1, 0, 0)
///     static var models: [any PersistentModel.Type] { [Book.self] }
///     @Model final class Book { var name: String = "" }
/// }
/// enum LibraryV2: VersionedSchema {
///     static let versionIdentifier = Schema.Version(2, 0, 0)
///     static var models: [any PersistentModel.Type] { [Book.self] }
///     @Model final class Book { @Attribute(originalName: "name") var title: String = "" }
/// }
/// ```
public protocol VersionedSchema {
    /// The version number, unique within a plan.
    static var versionIdentifier: Schema.Version { get }
    /// The model classes of this version.
    static var models: [any PersistentModel.Type] { get }
}

/// An application's schema versions and the stages between them (SwiftData's
/// `SchemaMigrationPlan`); open a store with ``PersistentStore/open(at:migrationPlan:options:)-(_,any SchemaMigrationPlan.Type,_)``.
///
/// For example:
/// ```swift
/// enum LibraryPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [LibraryV1.self, LibraryV2.self] }
///     static var stages: [MigrationStage] { [.lightweight(fromVersion: LibraryV1.self, toVersion: LibraryV2.self)] }
/// }
/// let store = try PersistentStore.open(at: path, migrationPlan: LibraryPlan.self)
/// ```
public protocol SchemaMigrationPlan {
    /// The versions, oldest first; the last is the application's.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages between them.
    static var stages: [MigrationStage] { get }
}

extension MigrationStage {
    /// A lightweight stage between two versioned schemas.
    public static func lightweight(fromVersion: any VersionedSchema.Type,
                                   toVersion: any VersionedSchema.Type) -> MigrationStage {
        .lightweight(from: fromVersion.versionIdentifier.description, to: toVersion.versionIdentifier.description)
    }

    /// A custom stage between two versioned schemas: `migrate` reads the old version's rows
    /// and writes the new version's values through a ``MigrationContext`` (see
    /// ``custom(from:to:batchSize:migrate:)``).
    public static func custom(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
                              batchSize: Int = 1024,
                              migrate: @escaping @Sendable (MigrationContext) throws -> Void) -> MigrationStage {
        .custom(from: fromVersion.versionIdentifier.description, to: toVersion.versionIdentifier.description,
                batchSize: batchSize, migrate: migrate)
    }
}

extension MigrationPlan {
    /// The untyped plan of a typed one: each versioned schema's models made into a
    /// ``Schema``, labelled with its version number.
    ///
    /// - Throws: `.invalidSchema` when a version's models do not make a valid schema.
    public init(_ plan: any SchemaMigrationPlan.Type) throws(StrataError) {
        var versions: [Version] = []
        for version in plan.schemas {
            versions.append(Version(version.versionIdentifier.description, try Schema(models: version.models)))
        }
        self.init(versions: versions, stages: plan.stages)
    }
}

extension PersistentStore {
    /// Opens the store in `directory` with the newest version of a typed migration plan,
    /// migrating it from whatever version it has; see
    /// ``open(at:migrationPlan:options:)-(_,MigrationPlan,_)``.
    ///
    /// - Throws: what that method throws, and `.invalidSchema` for a version whose models
    ///   do not make a valid schema.
    public static func open(at directory: String, migrationPlan: any SchemaMigrationPlan.Type,
                            options: Options = Options()) throws -> PersistentStore {
        try open(at: directory, migrationPlan: MigrationPlan(migrationPlan), options: options)
    }
}
