import Foundation
import Testing
import StrataTestSupport
import StrataStorage
@testable import Strata

/// Object IDs: URI form, parsing, Codable, and use across contexts.
@Suite struct ObjectIDTests {
    @Test func uriRoundTrip() throws {
        let store = UUID()
        let id = ObjectID(storeID: store, entityName: "TodoItem", primaryKey: 42)
        #expect(id.description == "strata://\(store.uuidString)/TodoItem/42")
        #expect(ObjectID(uri: id.uriRepresentation) == id)
        #expect(ObjectID(uri: try #require(URL(string: id.description))) == id)
        let lower = try #require(URL(string: "strata://\(store.uuidString.lowercased())/TodoItem/42"))
        #expect(ObjectID(uri: lower) == id)
        let big = ObjectID(storeID: store, entityName: "E", primaryKey: .max)
        #expect(ObjectID(uri: big.uriRepresentation) == big)
    }

    @Test func malformedURIsAreRejected() throws {
        let store = UUID().uuidString
        for text in ["http://\(store)/E/1", "strata://not-a-uuid/E/1", "strata://\(store)/E", "strata://\(store)/E/x",
                     "strata://\(store)/E/0", "strata://\(store)/E/-3", "strata://\(store)/E/1/2"] {
            let url = try #require(URL(string: text))
            #expect(ObjectID(uri: url) == nil, "\(text)")
        }
    }

    @Test func codableRoundTrip() throws {
        let ids = [ObjectID(storeID: UUID(), entityName: "A", primaryKey: 1),
                   ObjectID(storeID: UUID(), entityName: "Book", primaryKey: 9_000_000_000)]
        let data = try JSONEncoder().encode(ids)
        #expect(try JSONDecoder().decode([ObjectID].self, from: data) == ids)
        #expect(Set(ids).count == 2)
        #expect(ids.sorted() == ids)
    }

    /// An ID is a key and a shared store-and-entity pair: 16 bytes (a million IDs are 16 MB),
    /// equal exactly when store, entity and key are, however each was made, and encoded as
    /// the three values it always was.
    @Test func anIDIsSixteenBytesAndEqualByStoreEntityAndKey() throws {
        #expect(MemoryLayout<ObjectID>.size == 16)
        let store = UUID()
        // Made for a new pair on many threads at once: every one is the same ID.
        let made = Locked<[ObjectID]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            let id = ObjectID(storeID: store, entityName: "Racing", primaryKey: 7)
            made.withLock { $0.append(id) }
        }
        let ids = made.withLock { $0 }
        #expect(ids.count == 64 && Set(ids).count == 1)
        let id = ids[0]
        let copies = [ObjectID(storeID: UUID(uuidString: store.uuidString)!, entityName: "Racing", primaryKey: 7),
                      try #require(ObjectID(uri: id.uriRepresentation)),
                      try JSONDecoder().decode(ObjectID.self, from: JSONEncoder().encode(id))]
        for copy in copies {
            #expect(copy == id && copy.hashValue == id.hashValue)
            #expect(copy.storeID == store && copy.entityName == "Racing" && copy.primaryKey == 7)
        }
        // A canonically equivalent name is the same name, as String equality has it.
        #expect(ObjectID(storeID: store, entityName: "Caf\u{E9}", primaryKey: 1) == ObjectID(storeID: store, entityName: "Cafe\u{301}", primaryKey: 1))
        for other in [ObjectID(storeID: UUID(), entityName: "Racing", primaryKey: 7),
                      ObjectID(storeID: store, entityName: "Racin", primaryKey: 7),
                      ObjectID(storeID: store, entityName: "Racing", primaryKey: 8)] {
            #expect(other != id)
        }
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(id)) as? [String: Any]
        #expect(Set(json?.keys.map { $0 } ?? []) == ["storeID", "entityName", "primaryKey"])
        #expect(json?["entityName"] as? String == "Racing" && json?["primaryKey"] as? Int == 7)
    }

    @Test func idsOfSavedObjectsResolveInAReopenedStore() throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let context = fixture.context()
        let uri = try context.performAndWait {
            let note = try context.insert("Note")
            #expect(note.objectID.primaryKey > 0, "permanent at insert")
            #expect(note.objectID.storeID == fixture.store.storeID)
            try note.setValues(["title": "t", "body": "b"])
            try context.save()
            return note.objectID.uriRepresentation
        }
        let storeID = fixture.store.storeID
        try fixture.reopen()
        #expect(fixture.store.storeID == storeID, "the store's identity is permanent")
        let reader = fixture.context()
        try reader.performAndWait { () throws in
            let id = try #require(ObjectID(uri: uri))
            #expect(try reader.existingObject(with: id).string("title") == "t")
            // Keys are never reused, even after a reopen.
            let next = try reader.insert("Note")
            #expect(next.objectID.primaryKey > id.primaryKey)
        }
        let foreign = ObjectID(storeID: UUID(), entityName: "Note", primaryKey: 1)
        let error = #expect(throws: StrataError.self) { try reader.performAndWait { try reader.existingObject(with: foreign) } }
        #expect(error?.message.contains("another store") == true)
    }
}
