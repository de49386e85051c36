import Foundation
import StrataModels
import Testing

@Model final class IndexedContact {
    #Index<IndexedContact>([\.email], [\.lastName, \.firstName], [\.company])
    var email: String
    var firstName: String
    var lastName: String
    var company: IndexedCompany?
    init(email: String, firstName: String, lastName: String) {
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
    }
}

@Model final class IndexedCompany {
    var name: String
    var contacts: [IndexedContact] = []
    init(name: String) { self.name = name }
}

/// `#Index` on a model class: the schema gets the indexes, and fetches use them.
@Suite struct IndexModelTests {
    @Test func indexMacroDeclaresTheEntitysIndexes() throws {
        let schema = try Schema(IndexedContact.self, IndexedCompany.self)
        #expect(schema.entity(named: "IndexedContact")?.indexes == [["email"], ["lastName", "firstName"], ["company"]])
        #expect(schema.entity(named: "IndexedCompany")?.indexes == [])
    }

    @Test func aTypedFetchByAnIndexedKeyFindsTheObject() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-index-model-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try PersistentStore.open(at: directory, schema: Schema(IndexedContact.self, IndexedCompany.self))
        defer { try? store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for i in 0..<20 { context.insert(IndexedContact(email: "c\(i)@x.org", firstName: "F", lastName: "L")) }
            try context.save()
            let found = try context.fetch(FetchDescriptor<IndexedContact>(predicate: #Predicate { $0.email == "c7@x.org" }))
            #expect(found.map(\.email) == ["c7@x.org"])
        }
        let request = FetchRequest(entityName: "IndexedContact", predicate: try ObjectPredicate(format: "email == 'c7@x.org'"))
        #expect(try store.fetchStrategy(request).lookupIndex == ["email"])
    }
}
