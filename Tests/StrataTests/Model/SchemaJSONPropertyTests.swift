import Foundation
import PropertyBased
import Testing
@testable import Strata

@Suite("Schema JSON properties")
struct SchemaJSONPropertyTests {
    @Test func randomSchemasRoundTripThroughJSON() async throws {
        await propertyCheck(count: 100, input: SchemaGen.schema) { schema in
            #expect(throws: Never.self) { try schema.validate() }
            for pretty in [true, false] {
                let text = schema.jsonString(prettyPrinted: pretty)
                let decoded = try Schema(jsonString: text)
                #expect(decoded == schema)
                #expect(decoded.jsonString(prettyPrinted: pretty) == text)
            }
            #expect(try Schema(storedBytes: schema.encodedForStore()) == schema)
            #expect(schema.differences(from: try Schema(jsonData: schema.jsonData())).isEmpty)
        }
    }

    @Test func outputIsDeterministic() async {
        await propertyCheck(count: 50, input: SchemaGen.schema) { schema in
            let copy = Schema(entities: schema.entities.map {
                Entity(name: $0.name, attributes: $0.attributes, relationships: $0.relationships)
            })
            #expect(copy.encodedForStore() == schema.encodedForStore())
        }
    }

    @Test func removingAnEntityIsAlwaysReported() async {
        await propertyCheck(count: 100, input: SchemaGen.schema) { schema in
            var smaller = schema
            let removed = smaller.entities.removeLast()
            let differences = smaller.differences(from: schema)
            #expect(differences.contains(.entityRemoved(removed.name)))
            #expect(schema.differences(from: smaller).contains(.entityAdded(removed.name)))
        }
    }
}
