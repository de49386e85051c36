import Foundation
import StrataTestSupport
@testable import Strata
import StrataStorage

/// The schema of the robustness suite: a to-many / to-one pair with a cascade rule on one
/// side and a nullify rule on the other.
enum RobustnessSchema {
    static let schema = try! Schema {
        Entity("Parent") {
            Attribute("name", .string, default: "")
            Attribute("count", .int64, default: 0)
            Attribute("flag", .bool, default: false)
            Relationship("children", to: "Child", inverse: "parent", toMany: true, deleteRule: .cascade)
        }
        Entity("Child") {
            Attribute("value", .int64, default: 0)
            Attribute("note", .string, optional: true)
            Relationship("parent", to: "Parent", inverse: "children", deleteRule: .nullify)
        }
    }

    static let directory = "/model-store"

    /// Whether the suite runs ``PersistentStore/checkInvariants(replay:)`` after each commit
    /// (`STRATA_CHECK_INVARIANTS`, on unless set to 0).
    static var checksInvariants: Bool { testKnob("STRATA_CHECK_INVARIANTS", default: 1) != 0 }

    /// Options for a store on the simulated file system.
    static func options(_ fs: SimulatedFileSystem, segmentSize: Int64 = 64 << 20,
                        durability: Durability = .always) -> PersistentStore.Options {
        var options = PersistentStore.Options()
        options.storage.fileSystem = fs
        options.storage.segmentSize = segmentSize
        options.storage.durability = durability
        options.automaticCheckpointBytes = nil
        return options
    }

    /// What a fresh context sees: every row of both entities, relationships included. Also
    /// checks that each parent's `children` are exactly the children pointing at it.
    static func visibleState(of store: PersistentStore) throws -> GraphState {
        let context = ObjectContext(store: store, name: "observer")
        return try context.performAndWait {
            var state = GraphState()
            for object in try context.fetch(FetchRequest(entityName: "Parent")) {
                state.parents[object.objectID.primaryKey] = ParentRow(
                    name: try object.string("name") ?? "<nil>", count: try object.int("count") ?? -999_999,
                    flag: try object.bool("flag") ?? false)
            }
            for object in try context.fetch(FetchRequest(entityName: "Child")) {
                state.children[object.objectID.primaryKey] = ChildRow(
                    value: try object.int("value") ?? -999_999, note: try object.string("note"),
                    parent: try object.object(forKey: "parent")?.objectID.primaryKey)
            }
            let derived = state.childrenByParent
            for key in state.parents.keys {
                let children = try context.existingObject(with: id(store, "Parent", key))
                    .objects(forKey: "children").map(\.objectID.primaryKey)
                if children != derived[key] ?? [] {
                    throw ModelFailure("Parent \(key).children is \(children) but the children pointing at it are \(derived[key] ?? [])")
                }
            }
            return state
        }
    }

    static func id(_ store: PersistentStore, _ entity: String, _ key: Int64) -> ObjectID {
        ObjectID(storeID: store.storeID, entityName: entity, primaryKey: key)
    }
}

/// A mismatch between the store and the model.
struct ModelFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
