import Foundation
import StrataModels
import StrataTestSupport
import Testing

enum ShelvesV1 {
    @Model final class Shelf {
        var label: String
        @Relationship(deleteRule: .cascade, inverse: \Volume.shelf) var books: [Volume] = []
        init(label: String) { self.label = label }
    }

    @Model final class Volume {
        var title: String
        var shelf: Shelf?
        init(title: String) { self.title = title }
    }
}

enum ShelvesV2 {
    @Model final class Shelf {
        var label: String
        @Relationship(deleteRule: .cascade, originalName: "books", inverse: \Volume.location) var volumes: [Volume] = []
        init(label: String) { self.label = label }
    }

    @Model final class Volume {
        var title: String
        @Relationship(originalName: "shelf") var location: Shelf?
        init(title: String) { self.title = title }
    }
}

/// `@Relationship(originalName:)`: both sides of a relationship renamed, and a lightweight
/// migration keeps which objects they relate, with the same object IDs.
@Suite struct RelationshipRenameTests {
    @Test func originalNameReachesTheSchema() throws {
        let schema = try Schema(ShelvesV2.Shelf.self, ShelvesV2.Volume.self)
        #expect(schema.entity(named: "Shelf")?.relationship(named: "volumes")?.originalName == "books")
        #expect(schema.entity(named: "Shelf")?.relationship(named: "volumes")?.inverse == "location")
        #expect(schema.entity(named: "Volume")?.relationship(named: "location")?.originalName == "shelf")
        #expect(schema.migrationChanges(from: try Schema(ShelvesV1.Shelf.self, ShelvesV1.Volume.self)).map(\.kind)
                == [.relationshipRenamed, .relationshipRenamed])
    }

    @Test func aRenamedRelationshipKeepsItsObjects() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/shelves.strata"
        let v1 = try PersistentStore.open(at: path, schema: Schema(ShelvesV1.Shelf.self, ShelvesV1.Volume.self))
        var placed: [ObjectID: ObjectID] = [:]          // volume → shelf
        let writer = ObjectContext(store: v1)
        try writer.performAndWait {
            let context = writer
            let shelves = [ShelvesV1.Shelf(label: "A"), ShelvesV1.Shelf(label: "B")]
            shelves.forEach { context.insert($0) }
            for i in 0..<7 {
                let volume = ShelvesV1.Volume(title: "v\(i)")
                context.insert(volume)
                if i != 6 { volume.shelf = shelves[i % 2] }
            }
            try context.save()
            for volume in try context.fetch(FetchDescriptor<ShelvesV1.Volume>()) {
                if let shelf = volume.shelf { placed[volume.persistentModelID!] = shelf.persistentModelID! }
            }
        }
        try v1.close()
        #expect(placed.count == 6)

        let store = try PersistentStore.open(at: path, schema: Schema(ShelvesV2.Shelf.self, ShelvesV2.Volume.self))
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let volumes = try context.fetch(FetchDescriptor<ShelvesV2.Volume>())
            #expect(volumes.count == 7)
            for volume in volumes {
                #expect(volume.location?.persistentModelID == placed[volume.persistentModelID!])
            }
            for shelf in try context.fetch(FetchDescriptor<ShelvesV2.Shelf>()) {
                let expected = placed.filter { $0.value == shelf.persistentModelID }.keys.map(\.primaryKey).sorted()
                #expect(shelf.volumes.compactMap(\.persistentModelID?.primaryKey).sorted() == expected)
                #expect(shelf.volumes.count == 3)
            }
        }
        try store.close()
    }
}
