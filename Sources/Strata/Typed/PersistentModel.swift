public import Observation

/// A class that `@Model` made persistent: its stored properties are an entity's attributes
/// and relationships, and each instance is the typed face of one ``ManagedObject``.
///
/// Do not conform to this protocol by hand: write `@Model final class …` (module
/// `StrataModels`), which generates every requirement. The requirements whose names start
/// with `_$` are the macro's contract with this runtime and not API.
///
/// For example:
/// ```swift
/// @Model final class TodoItem {
///     var name: String
///     var done: Bool = false
///     init(name: String) { self.name = name }
/// }
/// ```
public protocol PersistentModel: AnyObject, Observable, Hashable, SendableMetatype {
    /// The entity's name in the schema: the class's name.
    static var entityName: String { get }
    /// The entity's name in the previous schema version when the class was renamed (the
    /// typed spelling of ``Entity/originalName``), or `nil` (the default). Declare it in the
    /// class, typed exactly `String?`, and a lightweight migration keeps the entity's rows
    /// and primary keys under the new name:
    /// ```swift
    /// @Model final class Memo {
    ///     static var originalEntityName: String? { "Note" }
    ///     var text: String
    ///     init(text: String) { self.text = text }
    /// }
    /// ```
    static var originalEntityName: String? { get }
    /// The persisted properties, in declaration order (generated).
    static var _$properties: [ModelProperty] { get }
    /// The persisted properties' storage places (generated, built once per class).
    static var _$layout: ModelLayout { get }
    /// The name of the persisted property a key path of this class reaches, or `nil`
    /// (generated; used by `#Predicate`, `SortDescriptor` and `@Relationship(inverse:)`).
    static func _$propertyName(for keyPath: AnyKeyPath) -> String?
    /// The instance's storage: a managed object once inserted or fetched, its own values
    /// before that (generated).
    var _$backing: ModelBacking { get set }
    /// The registrar the instance's observers register with, once one is needed
    /// (generated; see ``ModelObservation``).
    var _$observation: ModelRegistrar? { get set }
    /// Makes the typed face of an object read from the store (generated).
    init(_$backing backing: ModelBacking)
    /// Tells observers that every persisted property may have changed: called when the
    /// object is refreshed, or merged with another context's save (generated).
    func _$persistedPropertiesDidChange()
}

extension PersistentModel {
    /// Not renamed: `nil`. A class that was renamed declares its own (see the requirement).
    public static var originalEntityName: String? { nil }

    /// Identity: a model is equal only to itself (each object has one model per context).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

    /// Hashes the model's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The object's permanent ID, or `nil` before it is inserted into a context.
    public var persistentModelID: ObjectID? { _$backing.object?.objectID }

    /// The managed object behind this model, or `nil` before it is inserted: the untyped
    /// view of the same object (reading or changing it is reading or changing this model).
    public var managedObject: ManagedObject? { _$backing.object }

    /// The context the object belongs to, or `nil` before it is inserted (or once the
    /// context is gone).
    public var modelContext: ObjectContext? { _$backing.object?.context }

    /// Whether it was inserted in its context and not saved yet.
    public var isInserted: Bool { _$backing.object?.isInserted ?? false }

    /// Whether it was deleted: in its context with the delete not saved yet, or in the store
    /// by another transaction its context merged (see ``ManagedObject/isDeleted``). The
    /// property getters of a model deleted in the store keep giving the values it had when
    /// the delete was merged (a list row can still show it while it animates out), or
    /// placeholders if it was still a fault; ``loadValues()`` throws `.objectNotFound`.
    public var isDeleted: Bool { _$backing.object?.isDeleted ?? false }

    /// Whether it has unsaved changes.
    public var hasChanges: Bool { _$backing.object?.hasChanges ?? false }

    /// Loads the object's values if it is a fault, and says whether it still exists.
    ///
    /// Property getters cannot throw: reading a property of an object whose row was
    /// deleted, or whose context is gone, gives the property's placeholder value (zero,
    /// empty, `nil`, or its declared default). Call this where that must be an error.
    ///
    /// - Throws: `.objectNotFound` when the row was deleted from the store; `.misuse` when
    ///   the context was reset or released.
    public func loadValues() throws(StrataError) {
        guard let object = _$backing.object else { return }
        // A loaded object deleted in the store has values but no row: say so.
        if object.isDeletedInStore, let error = object.unusable { throw error }
        try object.fireFault()
    }
}
