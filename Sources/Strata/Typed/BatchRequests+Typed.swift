public import Foundation

extension BatchUpdateRequest {
    /// A batch update of one attribute of the `Model` objects matching a `#Predicate`, by
    /// key path: the same request as the untyped one, so it appends the same compact record.
    ///
    /// For example:
    /// ```swift
    /// let checkAll = try BatchUpdateRequest(for: TodoItem.self, set: \.done, to: true, where: #Predicate { !$0.done })
    /// try store.execute(checkAll)
    /// ```
    ///
    /// - Throws: `.unknownKey` when `keyPath` is not a stored attribute of `Model`;
    ///   `.typeMismatch` for a value Strata does not store; `.unsupportedPredicate` as a
    ///   typed fetch.
    public init<Model: PersistentModel, Value>(for model: Model.Type, set keyPath: KeyPath<Model, Value>, to value: Value,
                                               where predicate: Predicate<Model>? = nil) throws(StrataError) {
        let name = try Self.attributeName(keyPath, of: Model.self)
        guard let stored = PredicateConstant.attributeValue(value) else {
            throw StrataError(.typeMismatch, "A batch update cannot store a \(Value.self) in \(Model.entityName).\(name); set a value of a stored type.", entity: Model.entityName, key: name)
        }
        self.init(entityName: Model.entityName, predicate: try predicate.map { p throws(StrataError) in try PredicateTranslator.translate(p) },
                  propertiesToUpdate: [name: .constant(stored)])
    }

    /// The name of the stored attribute `keyPath` reaches.
    static func attributeName<Model: PersistentModel>(_ keyPath: AnyKeyPath, of model: Model.Type) throws(StrataError) -> String {
        guard let name = Model._$propertyName(for: keyPath),
              let property = Model._$layout.properties.first(where: { $0.name == name }), case .attribute = property.role else {
            throw StrataError(.unknownKey, "\(keyPath) is not a stored attribute of \(Model.entityName); a batch update sets attributes.", entity: Model.entityName)
        }
        return name
    }
}

extension BatchDeleteRequest {
    /// A batch delete of the `Model` objects matching a `#Predicate` (all of them without
    /// one), with the delete rules applied as for the untyped request.
    ///
    /// - Throws: `.unsupportedPredicate` as a typed fetch.
    public init<Model: PersistentModel>(for model: Model.Type, where predicate: Predicate<Model>? = nil) throws(StrataError) {
        self.init(entityName: Model.entityName, predicate: try predicate.map { p throws(StrataError) in try PredicateTranslator.translate(p) })
    }
}
