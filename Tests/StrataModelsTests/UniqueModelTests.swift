import Foundation
import StrataModels
import Testing

@Model final class UniqueAccount {
    #Unique<UniqueAccount>([\.firstName, \.lastName])
    @Attribute(.unique) var email: String
    var firstName: String
    var lastName: String
    var logins: Int = 0
    init(email: String, firstName: String, lastName: String) {
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
    }
}

/// `@Attribute(.unique)` and `#Unique` on a model class: the schema gets the constraints,
/// and a typed save upserts under `.objectTrump`.
@Suite struct UniqueModelTests {
    @Test func uniqueOptionAndMacroDeclareTheConstraints() throws {
        let schema = try Schema(UniqueAccount.self)
        #expect(schema.entity(named: "UniqueAccount")?.uniquenessConstraints == [["email"], ["firstName", "lastName"]])
    }

    @Test func aTypedInsertOfAKnownEmailUpsertsUnderObjectTrump() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-unique-model-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try PersistentStore.open(at: directory, schema: Schema(UniqueAccount.self))
        defer { try? store.close() }
        let first = ObjectContext(store: store)
        let id = try first.performAndWait {
            let account = UniqueAccount(email: "a@x", firstName: "Ann", lastName: "Lee")
            first.insert(account)
            try first.save()
            return account.persistentModelID
        }
        let second = ObjectContext(store: store)
        try second.performAndWait {
            second.insert(UniqueAccount(email: "a@x", firstName: "Ann", lastName: "Other"))
            #expect(throws: StrataError.self) { try second.save() }
            second.rollback()
            second.mergePolicy = .objectTrump
            let again = UniqueAccount(email: "a@x", firstName: "Anne", lastName: "Lee")
            again.logins = 3
            second.insert(again)
            try second.save()
            #expect(again.persistentModelID == id, "the inserted model took over the stored object's ID")
            let all = try second.fetch(FetchDescriptor<UniqueAccount>())
            #expect(all.count == 1)
            #expect(all.first?.firstName == "Anne")
            #expect(all.first?.logins == 3)
        }
    }
}
