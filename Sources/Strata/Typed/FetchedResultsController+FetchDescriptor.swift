extension FetchedResultsController where ResultType: PersistentModel {
    /// A controller of the models `descriptor` describes in `context`, grouped into sections
    /// by `sectionKey` when given (the descriptor must then sort by it first).
    ///
    /// For example:
    /// ```swift
    /// let controller = try FetchedResultsController(
    ///     descriptor: FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.done), SortDescriptor(\.createdAt)]),
    ///     context: store.mainContext, sectionKey: \.done)
    /// try controller.performFetch()
    /// ```
    ///
    /// - Throws: `.unsupportedPredicate` and `.unknownKey` as ``ObjectContext/fetch(_:)-(FetchDescriptor<Model>)``;
    ///   `.schemaMismatch` when the store's entity does not match the class; `.unknownKey`
    ///   for a section key path that is not a persisted property, `.misuse` when the
    ///   results are not sorted by it first.
    public convenience init(descriptor: FetchDescriptor<ResultType>, context: ObjectContext,
                            sectionKey: PartialKeyPath<ResultType>? = nil) throws(StrataError) {
        let sectionName: String?
        if let sectionKey {
            guard let name = ResultType._$propertyName(for: sectionKey) else {
                throw StrataError(.unknownKey, "\(sectionKey) is not a persisted property of \(ResultType.entityName); sections need one.", entity: ResultType.entityName)
            }
            sectionName = name
        } else {
            sectionName = nil
        }
        let checked = context.performAndWait { Result { () throws(StrataError) in try context.modelLayoutIndex(ResultType.self) } }
        _ = try checked.get()
        try self.init(fetchRequest: descriptor.fetchRequest(), context: context, sectionNameKey: sectionName) { object in
            context.uniqueModel(for: object, as: ResultType.self)
        }
    }
}
