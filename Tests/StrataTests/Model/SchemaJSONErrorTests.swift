import Foundation
import Testing
@testable import Strata

@Suite("Schema JSON errors")
struct SchemaJSONErrorTests {
    /// The error for `json`, which must be rejected as an invalid schema.
    func error(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> StrataError? {
        do {
            _ = try Schema(jsonString: json)
            Issue.record("accepted: \(json)", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.code == .invalidSchema, sourceLocation: sourceLocation)
            return error
        }
    }

    func entity(_ attributes: String, relationships: String = "[]") -> String {
        #"{"entities": [{"name": "Person", "attributes": [\#(attributes)], "relationships": \#(relationships)}]}"#
    }

    @Test func syntaxError() {
        let message = error(#"{"entities": [}"#)?.message ?? ""
        #expect(message.hasPrefix("schema JSON is not valid JSON: "))
        #expect(!message.contains("codingPath"))
    }

    @Test func structuralErrorsNameThePlace() {
        let cases: [(String, String)] = [
            ("[]", "schema JSON: the top-level object must be a JSON object, but it is an array"),
            ("{}", "schema JSON: the top-level object is missing the key \"entities\""),
            (#"{"entities": [{"attributes": []}]}"#, "schema JSON: entity #1 is missing the key \"name\""),
            (#"{"entities": {}}"#, "schema JSON: the top-level object has \"entities\" as an object; it must be an array"),
            (entity(#"{"name": "age", "type": "integer"}"#),
             "schema JSON: attribute 'Person.age' has \"type\": \"integer\", which is not one of \"bool\", \"int16\", \"int32\", \"int64\", \"double\", \"string\", \"date\", \"uuid\", \"binary\""),
            (entity(#"{"name": "age"}"#), "schema JSON: attribute 'Person.age' is missing the key \"type\""),
            (entity(#"{"name": "age", "type": "int64", "optinal": true}"#),
             "schema JSON: attribute 'Person.age' has the unknown key \"optinal\" (did you mean \"optional\"?); the keys are \"name\", \"type\", \"optional\", \"default\", \"validation\""),
            (entity(#"{"name": "age", "type": "int64", "optional": "yes"}"#),
             "schema JSON: attribute 'Person.age' has \"optional\" as a string; it must be true or false"),
            (entity(#"{"name": "age", "type": "int16", "default": "x"}"#),
             "schema JSON: attribute 'Person.age' has a \"default\" that is a string or malformed; a int16 default must be a whole number"),
            (entity(#"{"name": "age", "type": "int16", "default": 1.5}"#), "a int16 default must be a whole number"),
            (entity(#"{"name": "id", "type": "uuid", "default": "nope"}"#), "a uuid default must be a UUID string"),
            (entity(#"{"name": "at", "type": "date", "default": "yesterday"}"#), "must be an ISO 8601 date"),
            (entity(#"{"name": "b", "type": "binary", "default": "%%%"}"#), "must be a base64 string"),
            (entity(#"{"name": "age", "type": "int16", "validation": [{"range": {"min": 0}, "length": {"max": 1}}]}"#),
             "attribute 'Person.age', validation rule #1, must have exactly one of the keys"),
            (entity(#"{"name": "age", "type": "int16", "validation": [{"range": {"minimum": 0}}]}"#),
             "schema JSON: attribute 'Person.age', validation rule #1, \"range\" has the unknown key \"minimum\""),
            (entity(#"{"name": "s", "type": "string", "validation": [{"length": {"max": "ten"}}]}"#),
             "\"length\" has \"max\" as a string; it must be a whole number"),
            (entity(#"{"name": "age", "type": "int16", "default": 20, "validation": [{"range": {"max": 10}}]}"#),
             "invalid schema: attribute 'Person.age' (int16) has a default that breaks its range ...10 rule"),
            (entity("", relationships: #"[{"name": "team", "destination": "Team"}]"#),
             "schema JSON: relationship 'Person.team' is missing the key \"inverse\""),
            (entity("", relationships: #"[{"name": "team", "destination": "Team", "inverse": "x", "deleteRule": "delete"}]"#),
             "has \"deleteRule\": \"delete\", which is not one of \"nullify\", \"cascade\", \"deny\", \"noAction\""),
            (entity("", relationships: #"[{"name": "team", "destination": "Team", "inverse": "members"}]"#),
             "invalid schema: relationship 'Person.team' points to entity 'Team', which does not exist"),
        ]
        for (json, expected) in cases {
            let message = error(json)?.message ?? ""
            #expect(message.contains(expected), "\(json)\n→ \(message)")
        }
    }

    @Test func errorsCarryEntityAndKey() {
        let caught = error(entity(#"{"name": "age", "type": "integer"}"#))
        #expect(caught?.entity == "Person")
        #expect(caught?.key == "age")
    }
}
