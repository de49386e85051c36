public import Foundation

/// The permanent identity of an object: its store, entity and 64-bit primary key.
///
/// IDs are assigned when an object is inserted (Strata has no temporary IDs), never reused,
/// and safe to send across queues and contexts. Objects themselves stay in their context;
/// hand an `ObjectID` to another context and ask it for ``ObjectContext/object(with:)``.
///
/// Printed as a URI: `strata://<store-uuid>/<Entity>/<pk>`.
public struct ObjectID: Sendable, Hashable, Codable, CustomStringConvertible, Comparable {
    /// The store the object lives in.
    public let storeID: UUID
    /// The entity's name.
    public let entityName: String
    /// The primary key, unique within the entity, starting at 1.
    public let primaryKey: Int64

    /// Creates an ID. Prefer IDs handed out by a context.
    public init(storeID: UUID, entityName: String, primaryKey: Int64) {
        self.storeID = storeID
        self.entityName = entityName
        self.primaryKey = primaryKey
    }

    /// `strata://<store-uuid>/<Entity>/<pk>`.
    public var uriRepresentation: URL {
        URL(string: "strata://\(storeID.uuidString)/\(entityName)/\(primaryKey)")!
    }

    /// Parses a URI made by ``uriRepresentation``; `nil` when it is not one.
    public init?(uri: URL) {
        guard uri.scheme == "strata", let host = uri.host, let store = UUID(uuidString: host) else { return nil }
        let parts = uri.path.split(separator: "/")
        guard parts.count == 2, let pk = Int64(parts[1]), pk > 0 else { return nil }
        self.init(storeID: store, entityName: String(parts[0]), primaryKey: pk)
    }

    /// Hashes the primary key and the entity name's length, first and last bytes: all O(1)
    /// to read, unlike the whole name and the store's UUID, and IDs that are equal agree on
    /// them. The name's ends keep IDs of same-length entities (`Person`, `Animal`) with the
    /// same key apart. Contexts hash IDs for every registered and changed object, so this is hot.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(primaryKey)
        let name = entityName.utf8
        hasher.combine(name.count)
        hasher.combine(name.first ?? 0)
        hasher.combine(name.last ?? 0)
    }

    /// The URI as a string.
    public var description: String { uriRepresentation.absoluteString }

    /// Orders by entity name, then primary key.
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        (lhs.entityName, lhs.primaryKey) < (rhs.entityName, rhs.primaryKey)
    }
}
