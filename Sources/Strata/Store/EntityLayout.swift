internal import StrataStorage

/// How one entity's rows are laid out in columns: primary key, row version, one column per
/// attribute, and one foreign-key column per to-one relationship. To-many relationships are
/// not stored: they are the rows of the destination whose inverse foreign key points here.
///
/// A class, though immutable: contexts look a layout up for every object they insert, and
/// tables carry one, so a copy is one reference rather than the entity, the properties, the
/// name index and the table descriptor each retained.
final class EntityLayout: Sendable {
    /// A stored property: an attribute or a to-one relationship.
    struct Property: Sendable {
        var name: String
        /// Column index in a chunk.
        var column: Int
        /// The attribute's type, or `nil` for a to-one relationship (an `int64` key).
        var type: AttributeType?
        var isOptional: Bool
        /// For a to-one relationship: the destination entity's index.
        var destination: Int?
    }

    /// Where a stored property's values are and how to read them: a plain value (no
    /// reference inside), so reading one copies nothing that needs counting.
    struct ColumnAccess: Sendable {
        /// Column index in a chunk.
        var column: Int
        /// The attribute's type, or `nil` for a to-one relationship (an `int64` key).
        var type: AttributeType?
    }

    static let primaryKeyColumn = 0
    static let versionColumn = 1

    let entity: Entity
    let index: Int
    let properties: [Property]
    let propertyIndex: [String: Int]
    /// Each property's ``ColumnAccess``, in layout order.
    let columnAccess: [ColumnAccess]
    let table: TableDescriptor
    /// The entity's indexes, each as positions in `properties` (most significant first):
    /// the declared ones, then one on each to-one relationship whose inverse is to-many,
    /// then one for each uniqueness constraint no earlier index lists the properties of.
    let indexes: [[Int]]
    /// The entity's uniqueness constraints: for each, its properties (positions in
    /// `properties`, in the order of the backing index) and the position in `indexes` of
    /// the index that backs it.
    let uniquenessConstraints: [(properties: [Int], index: Int)]

    init(entity: Entity, index: Int, schema: Schema) {
        self.entity = entity
        self.index = index
        var properties: [Property] = []
        var columns = [ColumnDescriptor(name: "$pk", kind: .int64), ColumnDescriptor(name: "$version", kind: .int64)]
        for attribute in entity.attributes {
            properties.append(Property(name: attribute.name, column: columns.count, type: attribute.type,
                                       isOptional: attribute.isOptional, destination: nil))
            columns.append(ColumnDescriptor(name: attribute.name, kind: Self.columnKind(attribute.type)))
        }
        for relationship in entity.relationships where !relationship.isToMany {
            let destination = schema.entities.firstIndex { $0.name == relationship.destination }
            properties.append(Property(name: relationship.name, column: columns.count, type: nil,
                                       isOptional: relationship.isOptional, destination: destination))
            columns.append(ColumnDescriptor(name: relationship.name, kind: .int64))
        }
        self.properties = properties
        columnAccess = properties.map { ColumnAccess(column: $0.column, type: $0.type) }
        propertyIndex = Dictionary(uniqueKeysWithValues: properties.enumerated().map { ($1.name, $0) })
        table = TableDescriptor(name: entity.name, columns: columns)
        let positions = propertyIndex
        var indexes = entity.indexes.map { index in index.compactMap { positions[$0] } }.filter { !$0.isEmpty }
        // The inverse key of every to-many relationship is indexed, declared or not, so that
        // reading the relationship costs its size rather than a scan of this table.
        for relationship in entity.relationships where !relationship.isToMany {
            guard let position = positions[relationship.name],
                  schema.entity(named: relationship.destination)?.relationship(named: relationship.inverse)?.isToMany == true,
                  !indexes.contains(where: { $0[0] == position }) else { continue }
            indexes.append([position])
        }
        var constraints: [(properties: [Int], index: Int)] = []
        for constraint in entity.uniquenessConstraints {
            let wanted = constraint.compactMap { positions[$0] }
            guard !wanted.isEmpty else { continue }
            // An index serves when it lists exactly the constraint's properties: all rows
            // with equal values are then one run of the index, whatever the order.
            if let found = indexes.firstIndex(where: { $0.count == wanted.count && Set($0) == Set(wanted) }) {
                constraints.append((indexes[found], found))
            } else {
                indexes.append(wanted)
                constraints.append((wanted, indexes.count - 1))
            }
        }
        self.indexes = indexes
        uniquenessConstraints = constraints
    }

    static func columnKind(_ type: AttributeType) -> ColumnKind {
        switch type {
        case .bool: return .bool
        case .int16, .int32, .int64: return .int64
        case .double, .date: return .double
        case .string, .uuid, .binary: return .bytes
        }
    }
}
