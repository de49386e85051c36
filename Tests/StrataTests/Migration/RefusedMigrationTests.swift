import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Changes a lightweight migration cannot make are refused before anything is written: a
/// `migrationRequired` error lists every difference and marks those needing a custom stage,
/// the log is byte for byte unchanged, and the store still opens with its old schema.
@Suite struct RefusedMigrationTests {
    typealias F = MigrationFixtures

    /// Opens with `schema`, expects a refusal whose blocking changes have `kinds`, and checks
    /// that nothing was written.
    func expectRefused(_ schema: Schema, blocking kinds: [SchemaChange.Kind],
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (fs, before) = try F.makeStore()
        let log = try F.logBytes(fs)
        let error = #expect(throws: StrataError.self, sourceLocation: sourceLocation) {
            try PersistentStore.open(at: F.directory, schema: schema, options: F.options(fs))
        }
        #expect(error?.code == .migrationRequired, sourceLocation: sourceLocation)
        let refusal = error?.cause as? MigrationRefusal
        #expect(refusal?.blocking.map(\.kind) == kinds, sourceLocation: sourceLocation)
        for change in refusal?.changes ?? [] {
            #expect(error?.message.contains(change.summary) == true, "the message lists \(change.summary)", sourceLocation: sourceLocation)
        }
        #expect(try F.logBytes(fs) == log, "a refused migration wrote to the log", sourceLocation: sourceLocation)
        let reopened = try PersistentStore.open(at: F.directory, schema: F.v1, options: F.options(fs))
        #expect(F.dump(reopened) == before, sourceLocation: sourceLocation)
        #expect(reopened.schema == F.v1, sourceLocation: sourceLocation)
        try reopened.close()
    }

    @Test func narrowingIsRefused() throws {
        try expectRefused(F.edit(F.v1, entity: "Author") { $0.attributes[2].type = .int16 }, blocking: [.attributeTypeChanged])
    }

    @Test func stringToDateIsRefused() throws {
        try expectRefused(F.edit(F.v1, entity: "Book") { $0.attributes[0].type = .date }, blocking: [.attributeTypeChanged])
    }

    @Test func requiredAttributeWithoutDefaultIsRefused() throws {
        try expectRefused(F.edit(F.v1, entity: "Book") { $0.attributes.append(Attribute("isbn", .string)) }, blocking: [.attributeAdded])
    }

    @Test func optionalToRequiredWithoutDefaultIsRefused() throws {
        try expectRefused(F.edit(F.v1, entity: "Book") { $0.attributes[1].isOptional = false }, blocking: [.attributeOptionalityChanged])
    }

    @Test func toOneBecomingToManyIsRefused() throws {
        // Book.author to-many and Author.books to-one: both sides change shape.
        var v2 = F.v1
        v2.entities[0].relationships[0].isToMany = false
        v2.entities[1].relationships[0].isToMany = true
        try expectRefused(v2, blocking: [.relationshipShapeChanged, .relationshipShapeChanged])
    }

    @Test func everyDifferenceIsListedAlongTheBlockingOnes() throws {
        // One lightweight change and two that are not: all three are in the refusal.
        let v2 = F.edit(F.v1, entity: "Author") {
            $0.attributes.append(Attribute("email", .string, optional: true))
            $0.attributes[0].type = .binary
            $0.attributes[1].type = .bool
        }
        let (fs, _) = try F.makeStore()
        let error = #expect(throws: StrataError.self) { try PersistentStore.open(at: F.directory, schema: v2, options: F.options(fs)) }
        let refusal = try #require(error?.cause as? MigrationRefusal)
        #expect(refusal.changes.map(\.kind) == [.attributeTypeChanged, .attributeTypeChanged, .attributeAdded])
        #expect(refusal.changes.map(\.isLightweight) == [false, false, true])
        #expect(error?.message.contains("2 of its 3 schema changes need a custom migration stage") == true)
    }

    @Test func turnedOffOrReadOnlyRefusesEvenLightweight() throws {
        let (fs, _) = try F.makeStore()
        let v2 = F.edit(F.v1, entity: "Author") { $0.attributes.append(Attribute("email", .string, optional: true)) }
        let log = try F.logBytes(fs)
        var off = F.options(fs)
        off.lightweightMigration = false
        #expect(throws: StrataError.self) { try PersistentStore.open(at: F.directory, schema: v2, options: off) }
        var readOnly = F.options(fs)
        readOnly.isReadOnly = true
        let error = #expect(throws: StrataError.self) { try PersistentStore.open(at: F.directory, schema: v2, options: readOnly) }
        #expect(error?.code == .migrationRequired)
        #expect(try F.logBytes(fs) == log)
    }
}
