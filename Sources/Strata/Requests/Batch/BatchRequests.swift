/// What a batch request returns.
public enum BatchResultType: Sendable, Hashable {
    /// Only whether it succeeded.
    case statusOnly
    /// The IDs of the affected objects.
    case objectIDs
    /// How many objects were affected.
    case count
}

/// The outcome of a batch request.
public struct BatchResult: Sendable, Hashable {
    /// Whether the request was applied (a request that matched nothing still succeeds).
    public var status: Bool
    /// The affected objects' IDs, when asked for (for a delete: every deleted object,
    /// cascades included), as the key ranges the request worked on: free to keep, count,
    /// test and pass to ``ObjectContext/mergeChanges(updated:deleted:into:)-(ObjectIDSet,ObjectIDSet,_)`` whatever the
    /// number of rows.
    public var objectIDSet: ObjectIDSet?
    /// The same IDs as an array, ascending (by entity name, then primary key), made when
    /// read: for a million rows, 16 MB that ``objectIDSet`` does not cost.
    public var objectIDs: [ObjectID]? {
        get { objectIDSet.map { Array($0) } }
        set { objectIDSet = newValue.map { ObjectIDSet($0) } }
    }
    /// How many objects were affected, when asked for (cascades included for a delete).
    public var count: Int?
    /// The transaction's LSN (0 when nothing was written).
    public var lsn: UInt64

    init(status: Bool, objectIDSet: ObjectIDSet?, count: Int?, lsn: UInt64) {
        self.status = status
        self.objectIDSet = objectIDSet
        self.count = count
        self.lsn = lsn
    }

    init(status: Bool, objectIDs: [ObjectID]?, count: Int?, lsn: UInt64) {
        self.init(status: status, objectIDSet: objectIDs.map { ObjectIDSet($0) }, count: count, lsn: lsn)
    }
}

/// A new value for one attribute of every matching row.
public enum BatchValue: Sendable, Hashable {
    /// A constant (type-checked against the attribute; nil only for optional ones).
    case constant(AttributeValue)
    /// The negation of a bool attribute of the same row (`!done`).
    case not(String)
    /// An integer or double attribute of the same row plus a constant (`count + 1`).
    case add(String, AttributeValue)
    /// Another attribute of the same row, of the same type.
    case copy(String)
}

/// Sets attributes of every object matching a predicate, directly in the store: no context,
/// no validation rules (the caller answers for ranges and patterns), but full type checking
/// (Core Data's `NSBatchUpdateRequest`). Appends one compact record to the log.
///
/// For example:
/// ```swift
/// var checkAll = BatchUpdateRequest(entityName: "TodoItem")
/// checkAll.predicate = try ObjectPredicate(format: "done == NO")
/// checkAll.propertiesToUpdate = ["done": .constant(true)]
/// checkAll.resultType = .objectIDs
/// let result = try store.execute(checkAll)
/// ```
public struct BatchUpdateRequest: Sendable, Hashable {
    /// The entity to update.
    public var entityName: String
    /// Which objects (`nil`: all).
    public var predicate: ObjectPredicate?
    /// Attribute name → new value.
    public var propertiesToUpdate: [String: BatchValue] = [:]
    /// What the result holds (default ``BatchResultType/statusOnly``).
    public var resultType: BatchResultType = .statusOnly
    /// The author persistent history records for the request's transaction (Core Data's
    /// `transactionAuthor`); `nil` records none.
    public var transactionAuthor: String?

    /// Creates a request.
    public init(entityName: String, predicate: ObjectPredicate? = nil, propertiesToUpdate: [String: BatchValue] = [:]) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }
}

/// Deletes every object matching a predicate (or listed by ID) directly in the store,
/// keeping the graph consistent where Core Data leaves it dangling: references to deleted
/// objects are nullified, cascade rules delete further, and a deny rule makes the whole
/// request fail with nothing written (Core Data's `NSBatchDeleteRequest`).
public struct BatchDeleteRequest: Sendable, Hashable {
    /// The entity to delete from.
    public var entityName: String
    /// Which objects (`nil` with no ``objectIDs``: all).
    public var predicate: ObjectPredicate?
    /// Exactly these objects instead of a predicate.
    public var objectIDs: [ObjectID]?
    /// What the result holds (default ``BatchResultType/statusOnly``).
    public var resultType: BatchResultType = .statusOnly
    /// The author persistent history records for the request's transaction (Core Data's
    /// `transactionAuthor`); `nil` records none.
    public var transactionAuthor: String?

    /// Deletes the objects of `entityName` matching `predicate`.
    public init(entityName: String, predicate: ObjectPredicate? = nil) {
        self.entityName = entityName
        self.predicate = predicate
    }

    /// Deletes exactly `objectIDs` (all of one entity).
    public init(objectIDs: [ObjectID]) {
        entityName = objectIDs.first?.entityName ?? ""
        self.objectIDs = objectIDs
    }
}

/// Inserts many objects directly in the store: no context, no validation rules, full type
/// checking, permanent IDs assigned (Core Data's `NSBatchInsertRequest`). Missing keys take
/// the attribute's default value (or nil). A to-one relationship is given as its
/// destination's primary key (`.int(primaryKey)`), which must exist; to-many relationships
/// are set from their inverse to-one side.
public struct BatchInsertRequest: Sendable {
    /// Where the rows come from: a list, or a closure called once per row as the insert
    /// reads it.
    enum Rows: Sendable {
        case list([[String: AttributeValue]])
        case generated(count: Int, fill: @Sendable (Int, inout [String: AttributeValue]) -> Void)
        /// ``init(entityName:properties:count:fill:)``: the values of `properties`, in order.
        case positional(properties: [String], count: Int, fill: @Sendable (Int, inout [AttributeValue]) -> Void)
    }

    /// The entity to insert into.
    public var entityName: String
    var rows: Rows
    /// What the result holds (default ``BatchResultType/statusOnly``).
    public var resultType: BatchResultType = .statusOnly
    /// The author persistent history records for the request's transaction (Core Data's
    /// `transactionAuthor`); `nil` records none.
    public var transactionAuthor: String?
    /// Whether rows are only inserted (the default) or upserted by the entity's first
    /// uniqueness constraint; see ``Mode``.
    public var mode: Mode = .insert

    /// The rows, as attribute name → value (to-one relationships as `.int(primaryKey)`).
    /// For a request made with ``init(entityName:count:fill:)``, reading this builds every
    /// row; the insert itself does not.
    public var objects: [[String: AttributeValue]] {
        get {
            switch rows {
            case .list(let list): return list
            case .generated(let count, let fill):
                return (0..<count).map { index in
                    var row: [String: AttributeValue] = [:]
                    fill(index, &row)
                    return row
                }
            case .positional(let properties, let count, let fill):
                return (0..<count).map { index in
                    var values = [AttributeValue](repeating: .null, count: properties.count)
                    fill(index, &values)
                    return Dictionary(zip(properties, values), uniquingKeysWith: { _, last in last })
                }
            }
        }
        set { rows = .list(newValue) }
    }

    /// How many rows the request inserts.
    public var count: Int {
        switch rows {
        case .list(let list): return list.count
        case .generated(let count, _), .positional(_, let count, _): return count
        }
    }

    /// Inserts `objects` into `entityName`.
    public init(entityName: String, objects: [[String: AttributeValue]]) {
        self.entityName = entityName
        rows = .list(objects)
    }

    /// Inserts `count` rows filled one by one by `fill(index, &row)` when the request runs:
    /// no dictionary is built up front, and the insert reuses one dictionary for every row
    /// (`row` starts empty each time).
    ///
    /// For example:
    /// ```swift
    /// let insert = BatchInsertRequest(entityName: "TodoItem", count: 1_000_000) { i, row in
    ///     row["name"] = .string("Item \(i)")
    /// }
    /// ```
    public init(entityName: String, count: Int, fill: @escaping @Sendable (Int, inout [String: AttributeValue]) -> Void) {
        self.entityName = entityName
        rows = .generated(count: max(0, count), fill: fill)
    }

    /// Inserts `count` rows whose values of `properties` (attribute or to-one relationship
    /// names) `fill(index, &values)` sets by position, like the columns of a prepared
    /// `INSERT`: the names are resolved once for the request rather than hashed for every
    /// row. `values` has one entry per property and starts each row as `.null` (a `.null`
    /// that stays is stored as nil); properties not listed take their default value, as
    /// missing keys do.
    ///
    /// For example:
    /// ```swift
    /// let insert = BatchInsertRequest(entityName: "TodoItem", properties: ["name", "done"],
    ///                                 count: 1_000_000) { i, values in
    ///     values[0] = .string("Item \(i)")
    ///     values[1] = .bool(i % 3 == 0)
    /// }
    /// ```
    ///
    /// The request fails, writing nothing, when a name is not a property of the entity or is
    /// listed twice (`.unknownKey`, `.misuse`), when `fill` changes how many values there are
    /// (`.misuse`), and for a value of the wrong type (`.typeMismatch`, naming the row).
    public init(entityName: String, properties: [String], count: Int,
                fill: @escaping @Sendable (Int, inout [AttributeValue]) -> Void) {
        self.entityName = entityName
        rows = .positional(properties: properties, count: max(0, count), fill: fill)
    }

    /// Calls `body` with each row in order; a generated row lives only during its call. Not
    /// for a positional request (``init(entityName:properties:count:fill:)``), which
    /// `PersistentStore.execute(_:)` reads by position.
    func forEachObject(_ body: (Int, [String: AttributeValue]) throws -> Void) rethrows {
        switch rows {
        case .list(let list):
            for (index, row) in list.enumerated() { try body(index, row) }
        case .generated(let count, let fill):
            var row: [String: AttributeValue] = [:]
            for index in 0..<count {
                row.removeAll(keepingCapacity: true)
                fill(index, &row)
                try body(index, row)
            }
        case .positional:
            preconditionFailure("a positional batch insert is read by position")
        }
    }
}
