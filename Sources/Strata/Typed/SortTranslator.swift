import Foundation

/// Translates Foundation's `SortDescriptor` into the engine's ``SortKey``.
enum SortTranslator {
    /// The sort key of `descriptor`.
    ///
    /// `String` key paths: `.lexical` sorts by Unicode scalars after canonical composition
    /// (NFC), as the untyped API does;
    /// `.localizedStandard` (the default of `SortDescriptor(\.name)`) and `.localized` sort
    /// case-insensitively — without the locale's collation or numeric-aware ordering, which
    /// the engine does not have.
    ///
    /// - Throws: `.unsupportedPredicate` for a descriptor made from a comparator rather than
    ///   a key path, a key path that is not a stored attribute, or a `Decimal` attribute.
    static func sortKey<Model: PersistentModel>(_ descriptor: SortDescriptor<Model>) throws(StrataError) -> SortKey {
        let entity = Model.entityName
        guard let keyPath = descriptor.keyPath else {
            throw StrataError(.unsupportedPredicate, "A SortDescriptor<\(entity)> made from a comparator cannot run in the store; make it from a key path of a stored attribute.", entity: entity)
        }
        guard let name = Model._$propertyName(for: keyPath),
              let property = Model._$layout.properties.first(where: { $0.name == name }),
              case .attribute(let type, _) = property.role else {
            throw StrataError(.unsupportedPredicate, "SortDescriptor<\(entity)>(\(keyPath)) does not sort by a stored attribute of \(entity); sort by one of its attributes (relationships and @Transient properties cannot be sorted by).", entity: entity)
        }
        if type == .string, Self.isDecimal(keyPath) {
            throw StrataError(.unsupportedPredicate, "SortDescriptor<\(entity)>(\(keyPath)) sorts by a Decimal, which is stored as exact text whose order is not numeric; store a Double or an integer number of cents to sort by.", entity: entity, key: name)
        }
        let folds = descriptor.stringComparator.map { $0 != .lexical } ?? false
        return SortKey(name, ascending: descriptor.order == .forward, caseInsensitive: folds)
    }

    private static func isDecimal(_ keyPath: AnyKeyPath) -> Bool {
        let type = Swift.type(of: keyPath).valueType
        return type == Decimal.self || type == Decimal?.self
    }
}
