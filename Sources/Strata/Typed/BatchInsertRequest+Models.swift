extension BatchInsertRequest {
    /// A batch insert of `count` rows of `Model`, each made by `make(index)` when the insert
    /// reads it: a model built with its own initializer (so its declared defaults and types
    /// apply) whose persisted values become one row. The models are never inserted into a
    /// context; like every batch insert, the rows bypass contexts and validation and are
    /// appended as one bulk record.
    ///
    /// A to-one relationship is stored when it points to a model that already has an ID (one
    /// fetched or saved); a model that is new, and to-many relationships, are left out (set
    /// them from the inverse to-one side, as with the untyped request). A model that `make`
    /// takes from a context gives its current values.
    ///
    /// For example:
    /// ```swift
    /// let insert = BatchInsertRequest(for: TodoItem.self, count: 1_000_000) { i in
    ///     TodoItem(name: "Item \(i)")
    /// }
    /// try store.execute(insert)
    /// ```
    public init<Model: PersistentModel>(for model: Model.Type, count: Int, make: @escaping @Sendable (Int) -> Model) {
        let layout = Model._$layout
        self.init(entityName: Model.entityName, count: count) { index, row in
            Self.fill(&row, from: make(index)._$backing, layout: layout)
        }
    }

    /// The stored values of a model not in any context, by attribute name.
    static func fill(_ row: inout [String: AttributeValue], from backing: ModelBacking, layout: ModelLayout) {
        if let object = backing.object {
            // A model of a context: its current stored values (attributes and to-one keys).
            for (index, property) in layout.properties.enumerated() {
                if let stored = layout.storedIndex[index], let value = try? object.currentValue(stored) { row[property.name] = value }
            }
            return
        }
        for (index, property) in layout.properties.enumerated() {
            switch property.role {
            case .attribute:
                if let stored = layout.storedIndex[index], let value = backing.detached?.value(at: stored) { row[property.name] = value }
            case .toOne:
                guard let targets = backing.detached?.models[index] else { continue }
                guard let target = targets.first else { row[property.name] = .null; continue }
                if let id = (target as? any PersistentModel)?.persistentModelID { row[property.name] = .int(id.primaryKey) }
            case .toMany:
                continue
            }
        }
    }
}
