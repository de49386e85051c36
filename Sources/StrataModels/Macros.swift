@_exported public import Strata
@_exported public import Observation

/// Makes a final class a persistent model: its stored properties become an entity's
/// attributes and relationships, the entity and property names are the Swift names, and
/// each instance is the typed face of one ``Strata/ManagedObject`` (faulting, uniquing,
/// change tracking and validation as in the untyped API). The class becomes `Observable`.
///
/// What it generates (the contract, as SwiftData documents its own): for each persisted
/// property `x`, `get`/`set`/`init` accessors that read and write the managed object and
/// tell observers, a stand-in `_$x` and the property's kind `_$kind_x`; on the class,
/// `_$backing`, `_$observationRegistrar`, `init(_$backing:)`, `entityName`,
/// `_$properties`, `_$layout`, a key path `_$keyPath_x` per persisted property (made once,
/// for Observation), `_$propertyName(for:)`, `_$persistedPropertiesDidChange()`, and a
/// conformance to ``Strata/PersistentModel``. (The key paths' names depend on the
/// properties, hence `arbitrary` among the member names.)
///
/// Supported property types: `Bool`, `Int`, `Int16`, `Int32`, `Int64`, `Double`, `Float`,
/// `String`, `Date`, `UUID`, `Data`, `URL`, `Decimal`, enums with `String` or `Int` raw
/// values, `Codable` structs (stored as binary JSON), optionals of these, to-one
/// relationships (`T?`) and to-many relationships (`[T]`) to other models. Anything else is
/// a compile-time error naming the property.
///
/// For example:
/// ```swift
/// @Model final class TodoItem {
///     var name: String
///     var done: Bool = false
///     var list: TodoList?
///     @Transient var isSelected = false
///     init(name: String) { self.name = name }
/// }
/// ```
@attached(member, names: named(_$backing), named(_$observation), named(_$observationRegistrar), named(init(_$backing:)),
          named(entityName), named(_$properties), named(_$layout), named(_$propertyName(for:)),
          named(_$persistedPropertiesDidChange), named(deinit), arbitrary)
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable)
public macro Model() = #externalMacro(module: "StrataMacros", type: "ModelMacro")

/// Options of a persisted attribute, such as validation rules: `@Attribute(.length(1...200))`,
/// and its name in the previous schema version when it was renamed:
/// `@Attribute(originalName: "name") var title: String` (a lightweight migration then keeps
/// the values; see the "Migrating a store" article).
///
/// `@Attribute(.unique) var email: String` makes the attribute unique: the entity gets a
/// uniqueness constraint on it alone (SwiftData's `.unique`; see `#Unique` for compound ones).
@attached(peer)
public macro Attribute(_ options: Strata.Attribute.Option..., originalName: String? = nil) = #externalMacro(module: "StrataMacros", type: "AttributeMacro")

/// A relationship's delete rule, inverse, and name in the previous schema version when it
/// was renamed (SwiftData's parameters, in its order):
/// `@Relationship(deleteRule: .cascade, inverse: \TodoItem.list)`,
/// `@Relationship(originalName: "author") var writer: Author?` (a lightweight migration then
/// keeps which objects it relates; see the "Migrating a store" article).
///
/// Without `inverse:` on either side, the destination's only relationship back is taken.
@attached(peer)
public macro Relationship(deleteRule: Strata.DeleteRule = .nullify, originalName: String? = nil,
                          inverse: AnyKeyPath? = nil) = #externalMacro(module: "StrataMacros", type: "RelationshipMacro")

/// Declares the indexes the store keeps on a model's entity (SwiftData's spelling): one
/// array of key paths per index, most significant property first. Write it once, in the
/// model's body; the properties are persisted attributes or to-one relationships.
///
/// For example:
/// ```swift
/// @Model final class Person {
///     #Index<Person>([\.email], [\.lastName, \.firstName])
///     var email: String
///     var firstName: String
///     var lastName: String
///     init(email: String, firstName: String, lastName: String) { … }
/// }
/// ```
///
/// It generates `static var _$indexKeyPaths`, which `Schema(models)` reads.
@freestanding(declaration, names: named(_$indexKeyPaths))
public macro Index<Model: PersistentModel>(_ indexes: [PartialKeyPath<Model>]...) = #externalMacro(module: "StrataMacros", type: "IndexMacro")

/// Declares the uniqueness constraints of a `@Model` class (SwiftData's `#Unique`): one
/// array of key paths per constraint; no two objects may share the values of all of its
/// properties. Write it once, in the model's body. A save that would break one throws
/// `.constraintConflict` unless the context's merge policy resolves it (`.objectTrump`
/// upserts). A single property can say `@Attribute(.unique)` instead.
///
/// For example:
/// ```swift
/// @Model final class Person {
///     #Unique<Person>([\.email], [\.firstName, \.lastName])
///     var email: String
///     var firstName: String
///     var lastName: String
///     init(email: String, firstName: String, lastName: String) { … }
/// }
/// ```
///
/// It generates `static var _$uniqueKeyPaths`, which `Schema(models)` reads.
@freestanding(declaration, names: named(_$uniqueKeyPaths))
public macro Unique<Model: PersistentModel>(_ constraints: [PartialKeyPath<Model>]...) = #externalMacro(module: "StrataMacros", type: "UniqueMacro")

/// Leaves a stored property out of the model: it is not persisted, and not observed. It
/// needs a default value.
@attached(peer)
public macro Transient() = #externalMacro(module: "StrataMacros", type: "TransientMacro")

/// Generated by `@Model` on each persisted property: its accessors and stand-ins. Not API.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(`_$`), prefixed(`_$kind_`))
public macro _PersistedProperty(_ index: Int) = #externalMacro(module: "StrataMacros", type: "PersistedPropertyMacro")

/// Makes an actor own a private-queue context and run on its queue, for background work
/// on models: generates `modelContext`, `modelExecutor`, `init(store:)` and the conformance
/// to ``Strata/ModelActor``.
///
/// For example:
/// ```swift
/// @ModelActor actor Importer {
///     func add(_ name: String) throws -> ObjectID? {
///         let item = TodoItem(name: name)
///         modelContext.insert(item)
///         try modelContext.save()
///         return item.persistentModelID
///     }
/// }
/// ```
@attached(member, names: named(modelContext), named(modelExecutor), named(init(store:)))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "StrataMacros", type: "ModelActorMacro")
