import Foundation
import Testing
@testable import Strata

/// Uniqueness constraints in the schema: the builder, JSON, the stored schema and the
/// consistency check.
@Suite struct UniquenessSchemaTests {
    @Test func theBuilderJSONAndStoredSchemaKeepConstraints() throws {
        let schema = UniquenessFixtures.people
        #expect(schema.entity(named: "Person")?.uniquenessConstraints == [["email"]])
        let json = schema.jsonString()
        #expect(json.contains("\"uniquenessConstraints\""))
        let decoded = try Schema(jsonString: json)
        #expect(decoded == schema)
        let fixture = try StoreFixture(schema)
        defer { fixture.remove() }
        let reopened = try fixture.reopen()
        #expect(reopened.schema.entity(named: "Person")?.uniquenessConstraints == [["email"]])
    }

    @Test func aConstraintBacksItselfWithAnIndexOrReusesAMatchingOne() throws {
        let own = try Schema { Entity("P", uniquenessConstraints: [["a", "b"]]) { Attribute("a", .string); Attribute("b", .int64) } }
        let ownLayout = EntityLayout(entity: own.entities[0], index: 0, schema: own)
        #expect(ownLayout.indexes == [[0, 1]])
        #expect(ownLayout.uniquenessConstraints.map(\.index) == [0])
        let shared = try Schema {
            Entity("P", indexes: [["b", "a"]], uniquenessConstraints: [["a", "b"]]) { Attribute("a", .string); Attribute("b", .int64) }
        }
        let sharedLayout = EntityLayout(entity: shared.entities[0], index: 0, schema: shared)
        #expect(sharedLayout.indexes == [[1, 0]], "the declared index serves the constraint; no second index")
        #expect(sharedLayout.uniquenessConstraints.map(\.properties) == [[1, 0]])
    }

    @Test func aConstraintOnAnUnknownPropertyIsRefusedWithTheName() {
        do {
            _ = try Schema { Entity("P", uniquenessConstraints: [["emial"]]) { Attribute("email", .string) } }
            Issue.record("the schema was accepted")
        } catch {
            #expect(error.code == .invalidSchema)
            #expect(error.message.contains("uniqueness constraint #1 of entity 'P' lists 'emial'"), "\(error.message)")
        }
    }

    @Test func aBadConstraintInJSONIsRefused() {
        let json = #"{"entities":[{"name":"P","attributes":[{"name":"a","type":"string"}],"relationships":[],"uniquenessConstraints":["a"]}]}"#
        #expect(throws: StrataError.self) { try Schema(jsonString: json) }
    }
}
