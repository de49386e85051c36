/// The changes of one transaction, by entity, in the store's internal form: entity and
/// property indexes of the store's schema, values already type-checked.
struct Changeset: Sendable {
    /// A new row with every stored property (indexed like `EntityLayout.properties`).
    struct Insert: Sendable {
        var primaryKey: Int64
        var values: RowValues

        init(primaryKey: Int64, values: [AttributeValue]) {
            self.primaryKey = primaryKey
            self.values = RowValues(values)
        }

        init(primaryKey: Int64, values: RowValues) {
            self.primaryKey = primaryKey
            self.values = values
        }
    }

    /// New values for some properties of an existing row.
    struct Update: Sendable {
        var primaryKey: Int64
        /// The row version the change was based on (0: do not check).
        var expectedVersion: UInt64
        var values: [(property: Int, value: AttributeValue)]
    }

    /// A row to remove.
    struct Delete: Sendable {
        var primaryKey: Int64
        var expectedVersion: UInt64
    }

    /// The changes to one entity.
    struct EntityChanges: Sendable {
        var inserts = Inserts()
        var updates: [Update] = []
        var deletes: [Delete] = []

        /// The changes `inserts`, `updates` and `deletes`.
        init(inserts: [Insert] = [], updates: [Update] = [], deletes: [Delete] = []) {
            self.inserts = Inserts(inserts)
            self.updates = updates
            self.deletes = deletes
        }

        /// The rows of `inserts` inserted, nothing else.
        init(inserts: Inserts) {
            self.inserts = inserts
        }

        var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty }
    }

    /// Changes per entity index.
    var entities: [Int: EntityChanges] = [:]

    var isEmpty: Bool { entities.values.allSatisfy(\.isEmpty) }
}
