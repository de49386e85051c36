/// One difference between a store's schema and the schema it is migrated to, as a
/// migration plans it: what changed, whether a lightweight migration can do it, and how
/// many rows it touches.
///
/// ``PersistentStore/migrationChanges(to:)`` lists them, and a refused migration's
/// ``MigrationRefusal`` carries them.
public struct SchemaChange: Sendable, Hashable, CustomStringConvertible {
    /// What kind of change it is.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kind's stable name, such as `"attributeAdded"`.
        public let rawValue: String
        /// Creates a kind from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The kind's name.
        public var description: String { rawValue }

        /// An entity was added.
        public static let entityAdded = Self(rawValue: "entityAdded")
        /// An entity was removed (its rows are dropped).
        public static let entityRemoved = Self(rawValue: "entityRemoved")
        /// An entity was renamed (`originalName`).
        public static let entityRenamed = Self(rawValue: "entityRenamed")
        /// An attribute was added.
        public static let attributeAdded = Self(rawValue: "attributeAdded")
        /// An attribute was removed (its values are dropped).
        public static let attributeRemoved = Self(rawValue: "attributeRemoved")
        /// An attribute was renamed (`originalName`).
        public static let attributeRenamed = Self(rawValue: "attributeRenamed")
        /// An attribute's type changed.
        public static let attributeTypeChanged = Self(rawValue: "attributeTypeChanged")
        /// An attribute became optional or required.
        public static let attributeOptionalityChanged = Self(rawValue: "attributeOptionalityChanged")
        /// An attribute's default value changed.
        public static let attributeDefaultChanged = Self(rawValue: "attributeDefaultChanged")
        /// An attribute's validation rules changed.
        public static let attributeValidationChanged = Self(rawValue: "attributeValidationChanged")
        /// A relationship was added.
        public static let relationshipAdded = Self(rawValue: "relationshipAdded")
        /// A relationship was removed.
        public static let relationshipRemoved = Self(rawValue: "relationshipRemoved")
        /// A relationship was renamed (`originalName`).
        public static let relationshipRenamed = Self(rawValue: "relationshipRenamed")
        /// A relationship's destination, inverse or cardinality changed.
        public static let relationshipShapeChanged = Self(rawValue: "relationshipShapeChanged")
        /// A relationship became optional or required.
        public static let relationshipOptionalityChanged = Self(rawValue: "relationshipOptionalityChanged")
        /// A relationship's delete rule changed.
        public static let relationshipDeleteRuleChanged = Self(rawValue: "relationshipDeleteRuleChanged")
        /// An index was added (the store builds it; no row is rewritten).
        public static let indexAdded = Self(rawValue: "indexAdded")
        /// An index was removed (no row is rewritten).
        public static let indexRemoved = Self(rawValue: "indexRemoved")
        /// A uniqueness constraint was added (no row is rewritten; a store whose rows
        /// already share the constrained values is refused with `.constraintConflict`).
        public static let uniquenessConstraintAdded = Self(rawValue: "uniquenessConstraintAdded")
        /// A uniqueness constraint was removed (no row is rewritten).
        public static let uniquenessConstraintRemoved = Self(rawValue: "uniquenessConstraintRemoved")
    }

    /// What kind of change it is.
    public var kind: Kind
    /// The entity involved: its new name, or its old one when it was removed.
    public var entity: String
    /// The attribute or relationship involved, when there is one (its new name).
    public var property: String?
    /// A sentence such as `attribute 'Person.age' changed type from int16 to int64`.
    public var summary: String
    /// Why a lightweight migration cannot make this change and a custom stage must, or
    /// `nil` when it is lightweight.
    public var customStageReason: String?
    /// How many stored rows the migration rewrites for this change (in memory, while the
    /// store opens; the log records only the change itself), or for a change that needs a
    /// custom stage, the rows that stage has to rewrite. Adding an attribute with a default
    /// touches none.
    public var rowsTouched: Int

    /// Whether a lightweight (inferred) migration can make this change.
    public var isLightweight: Bool { customStageReason == nil }

    /// Creates a change.
    public init(kind: Kind, entity: String, property: String? = nil, summary: String,
                customStageReason: String? = nil, rowsTouched: Int = 0) {
        self.kind = kind
        self.entity = entity
        self.property = property
        self.summary = summary
        self.customStageReason = customStageReason
        self.rowsTouched = rowsTouched
    }

    /// The summary, then `lightweight` or why it needs a custom stage.
    public var description: String {
        summary + (customStageReason.map { " — needs a custom stage: \($0)" } ?? " — lightweight")
    }
}

/// Why a migration was refused before anything was written: every difference between the
/// stored schema and the target one, with those that need a custom stage marked. The
/// ``StrataError`` with code ``StrataError/Code/migrationRequired`` carries it as its
/// `cause`.
///
/// For example:
/// ```swift
/// do {
///     store = try PersistentStore.open(at: path, schema: newSchema)
/// } catch let error as StrataError where error.code == .migrationRequired {
///     let refusal = error.cause as? MigrationRefusal
///     for change in refusal?.changes ?? [] where !change.isLightweight { print(change) }
/// }
/// ```
public struct MigrationRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// Every difference, lightweight or not, in the order of ``Schema/migrationChanges(from:)``.
    public var changes: [SchemaChange]

    /// Creates a refusal.
    public init(changes: [SchemaChange]) { self.changes = changes }

    /// The changes that need a custom stage.
    public var blocking: [SchemaChange] { changes.filter { !$0.isLightweight } }

    /// One line per difference.
    public var description: String { changes.map { "- \($0)" }.joined(separator: "\n") }
}

extension StrataError.Code {
    /// A store's schema differs from the application's in a way a lightweight migration
    /// cannot handle (or migration was turned off, or the store is read-only); the message
    /// lists every difference and the `cause` is a ``MigrationRefusal``. Nothing was written.
    public static let migrationRequired = Self(rawValue: "migrationRequired")
    /// A custom migration stage failed; the store was left as it was. The `cause` is the
    /// stage's error.
    public static let migrationFailed = Self(rawValue: "migrationFailed")
}
