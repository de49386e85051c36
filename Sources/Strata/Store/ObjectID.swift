public import Foundation
import Synchronization
internal import StrataStorage

/// The permanent identity of an object: its store, entity and 64-bit primary key.
///
/// IDs are assigned when an object is inserted (Strata has no temporary IDs), never reused,
/// and safe to send across queues and contexts. Objects themselves stay in their context;
/// hand an `ObjectID` to another context and ask it for ``ObjectContext/object(with:)``.
///
/// Printed as a URI: `strata://<store-uuid>/<Entity>/<pk>`. An ID takes 16 bytes: its primary
/// key and a reference to its store and entity, which every ID of that entity shares.
public struct ObjectID: Sendable, Hashable, Codable, CustomStringConvertible, Comparable {
    /// The store and entity, shared by every ID of the pair (``ObjectIDEntity/interned(storeID:entityName:)``).
    /// Interned pairs live as long as the process, so the reference is held without a
    /// count: copying an ID copies 16 bytes, and reading its store or entity name touches
    /// no reference count either.
    private let entityReference: Unmanaged<ObjectIDEntity>
    /// The primary key, unique within the entity, starting at 1.
    public let primaryKey: Int64

    /// The store the object lives in.
    public var storeID: UUID { entityReference._withUnsafeGuaranteedRef { $0.storeID } }
    /// The entity's name.
    public var entityName: String { entityReference._withUnsafeGuaranteedRef { $0.entityName } }

    /// Whether the ID is one of `entity`'s (its store and entity name are `entity`'s).
    func belongs(to entity: ObjectIDEntity) -> Bool {
        entityReference.toOpaque() == Unmanaged.passUnretained(entity).toOpaque()
    }

    /// Creates an ID. Prefer IDs handed out by a context.
    public init(storeID: UUID, entityName: String, primaryKey: Int64) {
        // The interned pair as a reference without a count: IDs are made many at a time
        // (a batch delete's list of ten million), and a counted reference costs a retain and
        // a release on the pair's shared count for each.
        entityReference = ObjectIDEntity.internedReference(storeID: storeID, entityName: entityName)
        self.primaryKey = primaryKey
    }

    /// The ID of `primaryKey` in `entity`: what code that makes many IDs of one entity
    /// uses, having looked the entity up once.
    init(entity: ObjectIDEntity, primaryKey: Int64) {
        entityReference = Unmanaged.passUnretained(entity)
        self.primaryKey = primaryKey
    }

    private enum CodingKeys: String, CodingKey {
        case storeID, entityName, primaryKey
    }

    /// Decodes the store's UUID, the entity name and the primary key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(storeID: try container.decode(UUID.self, forKey: .storeID),
                  entityName: try container.decode(String.self, forKey: .entityName),
                  primaryKey: try container.decode(Int64.self, forKey: .primaryKey))
    }

    /// Encodes the store's UUID, the entity name and the primary key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(storeID, forKey: .storeID)
        try container.encode(entityName, forKey: .entityName)
        try container.encode(primaryKey, forKey: .primaryKey)
    }

    /// Whether both name the same object: the same store, entity and primary key.
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        // Interned: one entity object per store and entity name.
        lhs.entityReference.toOpaque() == rhs.entityReference.toOpaque() && lhs.primaryKey == rhs.primaryKey
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

    /// Hashes the primary key and the identity of the interned store and entity: equal IDs
    /// share both. Contexts hash IDs for every registered and changed object, so this is hot.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(primaryKey)
        hasher.combine(entityReference.toOpaque())
    }

    /// The URI as a string.
    public var description: String { uriRepresentation.absoluteString }

    /// Orders by entity name, then primary key.
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        (lhs.entityName, lhs.primaryKey) < (rhs.entityName, rhs.primaryKey)
    }
}

/// A store and one of its entities, as object IDs name them: one object per pair for the
/// whole process (``interned(storeID:entityName:)``), so that an ``ObjectID`` holds it as
/// 8 bytes and compares it by identity.
///
/// Interned pairs are never freed: a process holds one per store and entity it has named
/// (a few dozen bytes each), which is what lets IDs hold them without a reference count.
final class ObjectIDEntity: Sendable {
    /// The store's UUID.
    let storeID: UUID
    /// The entity's name.
    let entityName: String

    private init(storeID: UUID, entityName: String) {
        self.storeID = storeID
        self.entityName = entityName
    }

    /// What interning looks a pair up by.
    private struct Key: Hashable {
        let storeID: UUID
        let entityName: String
    }

    /// Every pair interned so far.
    private static let table = Locked<[Key: ObjectIDEntity]>([:])
    /// The pair interned or found last: IDs are usually made many at a time for one entity
    /// (`ObjectID(storeID:entityName:primaryKey:)` in a loop), and comparing with it costs
    /// a few words where the table costs a lock and a hash of the name. Interned pairs are
    /// never freed, so a stale pointer read here is still a valid pair.
    private static let last = Atomic<Unmanaged<ObjectIDEntity>?>(nil)

    /// The one object for `storeID` and `entityName`, made on first use.
    /// - Complexity: O(1): a comparison with the pair asked for last, else a lock and a hash
    ///   of the pair.
    static func interned(storeID: UUID, entityName: String) -> ObjectIDEntity {
        internedReference(storeID: storeID, entityName: entityName).takeUnretainedValue()
    }

    /// ``interned(storeID:entityName:)`` as a reference that holds no count (interned pairs
    /// are never freed): a comparison with the pair asked for last reads it without a retain.
    static func internedReference(storeID: UUID, entityName: String) -> Unmanaged<ObjectIDEntity> {
        if let recent = last.load(ordering: .acquiring),
           recent._withUnsafeGuaranteedRef({ $0.storeID == storeID && $0.entityName == entityName }) {
            return recent
        }
        let key = Key(storeID: storeID, entityName: entityName)
        let entity = table.withLock { table in
            if let found = table[key] { return found }
            let made = ObjectIDEntity(storeID: storeID, entityName: entityName)
            table[key] = made
            return made
        }
        let reference = Unmanaged.passUnretained(entity)
        last.store(reference, ordering: .releasing)
        return reference
    }
}
