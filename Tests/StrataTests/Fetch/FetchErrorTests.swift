import Foundation
import Testing
@testable import Strata

/// Every request error surfaces before a row is read, names what is wrong, and fetching
/// off the context's queue is `.misuse`.
@Suite struct FetchErrorTests {
    /// The error `body` throws (or `nil`).
    static func error(_ body: () throws -> Void) -> StrataError? {
        do { try body(); return nil } catch let error as StrataError { return error } catch { return nil }
    }

    /// The error the request raises from `fetchObjectIDs`, `count(for:)`, `fetch`,
    /// `fetchDictionaries` and `execute` alike, and already from planning (no rows read).
    static func error(_ request: FetchRequest, _ context: ObjectContext) -> StrataError? {
        let errors = [
            error { _ = try context.fetchObjectIDs(request) },
            error { _ = try context.count(for: request) },
            error { _ = try context.fetch(request) },
            error { _ = try context.fetchDictionaries(request) },
            error { _ = try context.execute(request) },
            error { _ = try FetchPlan(request, store: context.store) },
        ]
        #expect(Set(errors.map { $0?.code.rawValue ?? "none" }).count == 1, "\(errors)")
        return errors[0]
    }

    static func withContext(_ body: (ObjectContext) throws -> Void) throws {
        let harness = try FetchFixtures.Harness()
        defer { harness.close() }
        try harness.run { context throws in
            for i in 0..<10 { try FetchFixtures.person(context, ["name": .string("p\(i)"), "age": .int(Int64(i))]) }
            try context.save()
            try body(context)
        }
    }

    @Test func unknownEntityNamesTheNearest() throws {
        try Self.withContext { context throws in
            let e = Self.error(FetchRequest(entityName: "Persn"), context)
            #expect(e?.code == .unknownEntity)
            #expect(e?.message.contains("Person") == true, "\(String(describing: e))")
        }
    }

    @Test func unknownKeysNameTheNearest() throws {
        try Self.withContext { context throws in
            let predicate = Self.error(try FetchRequest("Person", "agee > 3"), context)
            #expect(predicate?.code == .unknownKey && predicate?.key == "agee")
            #expect(predicate?.message.contains("'age'") == true, "\(String(describing: predicate))")

            let sort = Self.error(try FetchRequest("Person", sort: [SortKey("nmae")]), context)
            #expect(sort?.code == .unknownKey && sort?.key == "nmae")
            #expect(sort?.message.contains("did you mean 'name'") == true, "\(String(describing: sort))")

            var fetched = try FetchRequest("Person")
            fetched.propertiesToFetch = ["name", "scor"]
            let property = Self.error(fetched, context)
            #expect(property?.code == .unknownKey && property?.message.contains("'score'") == true)

            // A to-many relationship is neither a sort key nor a fetched property.
            #expect(Self.error(try FetchRequest("Person", sort: [SortKey("pets")]), context)?.code == .unknownKey)
            #expect(Self.error(try FetchRequest("Person", "team.titel == 'x'"), context)?.message.contains("'title'") == true)
        }
    }

    @Test func typeMismatchBeforeAnyRow() throws {
        try Self.withContext { context throws in
            for format in ["name > 3", "age == 'x'", "active < YES", "born == 3", "name == nil", "age BEGINSWITH 'a'", "pets.name == 'x'"] {
                let e = Self.error(try FetchRequest("Person", format), context)
                #expect(e?.code == .typeMismatch, "\(format): \(String(describing: e))")
                #expect(e?.message.contains("'x'") == false, "no user data in \(format)")
            }
        }
    }

    @Test func negativeLimitOffsetOrBatchSize() throws {
        try Self.withContext { context throws in
            for (limit, offset, batch) in [(-1, 0, 0), (0, -1, 0), (0, 0, -20)] {
                var request = try FetchRequest("Person")
                request.fetchLimit = limit
                request.fetchOffset = offset
                request.fetchBatchSize = batch
                #expect(Self.error(request, context)?.code == .misuse, "\(limit) \(offset) \(batch)")
            }
        }
    }

    @Test func fetchingOffTheQueueIsMisuse() throws {
        let harness = try FetchFixtures.Harness()
        defer { harness.close() }
        let context = harness.context
        let request = try FetchRequest("Person")
        #expect(!context.isOnQueue)
        let errors = [
            Self.error { _ = try context.fetchObjectIDs(request) },
            Self.error { _ = try context.count(for: request) },
            Self.error { _ = try context.fetch(request) },
            Self.error { _ = try context.fetchDictionaries(request) },
            Self.error { _ = try context.execute(request) },
        ]
        for e in errors {
            #expect(e?.code == .misuse)
            #expect(e?.message.contains("perform") == true)
        }
        // On the queue the same request works.
        #expect(try context.performAndWait { try context.count(for: request) } == 0)
    }
}
