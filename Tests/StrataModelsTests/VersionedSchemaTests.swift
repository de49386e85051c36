import Foundation
import StrataModels
import StrataTestSupport
import Testing

enum LibraryV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Book.self] }

    @Model final class Book {
        var name: String = ""
        var pages: Int16 = 0
        init(name: String, pages: Int16) {
            self.name = name
            self.pages = pages
        }
    }
}

enum LibraryV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Book.self] }

    @Model final class Book {
        @Attribute(originalName: "name") var title: String = ""
        var pages: Int64 = 0
        var language: String = "en"
        var isbn: String? = nil
    }
}

enum LibraryV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Book.self] }

    @Model final class Book {
        var title: String = ""
        var pages: Int64 = 0
        var language: String = "en"
        var isbn: String? = nil
        var shortTitle: String
        init(shortTitle: String) { self.shortTitle = shortTitle }
    }
}

enum LibraryPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [LibraryV1.self, LibraryV2.self, LibraryV3.self] }
    static var stages: [MigrationStage] {
        [
            .lightweight(fromVersion: LibraryV1.self, toVersion: LibraryV2.self),
            .custom(fromVersion: LibraryV2.self, toVersion: LibraryV3.self) { context in
                try context.forEachObject(of: "Book") { book in
                    guard case .string(let title) = try book.value(forKey: "title") else { return }
                    try context.setValue(.string(String(title.prefix(3))), forKey: "shortTitle", of: book)
                }
            },
        ]
    }
}

/// The typed API of schema evolution: `VersionedSchema`, `SchemaMigrationPlan`,
/// `MigrationStage.lightweight(fromVersion:toVersion:)` / `.custom`, and
/// `@Attribute(originalName:)`.
@Suite struct VersionedSchemaTests {
    @Test func originalNameReachesTheSchema() throws {
        let schema = try Schema(models: LibraryV2.models)
        #expect(schema.entities[0].attribute(named: "title")?.originalName == "name")
        #expect(schema.entities[0].attribute(named: "pages")?.originalName == nil)
    }

    @Test func aTypedPlanMigratesThroughEveryVersion() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/library.strata"
        let v1 = try PersistentStore.open(at: path, schema: Schema(models: LibraryV1.models))
        var ids: [ObjectID] = []
        let context = ObjectContext(store: v1)
        try context.performAndWait {
            for (name, pages) in [("Dune", Int16(412)), ("Emma", 300)] {
                let book = LibraryV1.Book(name: name, pages: pages)
                context.insert(book)
            }
            try context.save()
            ids = try context.fetch(FetchDescriptor<LibraryV1.Book>(sortBy: [SortDescriptor(\.name)])).compactMap(\.managedObject?.objectID)
        }
        try v1.close()

        let store = try PersistentStore.open(at: path, migrationPlan: LibraryPlan.self)
        #expect(store.schemaHistory.map(\.label) == ["", "2.0.0", "3.0.0"])
        let reader = ObjectContext(store: store)
        try reader.performAndWait {
            let books = try reader.fetch(FetchDescriptor<LibraryV3.Book>(sortBy: [SortDescriptor(\.title)]))
            #expect(books.map(\.title) == ["Dune", "Emma"])
            #expect(books.map(\.pages) == [412, 300])
            #expect(books.map(\.language) == ["en", "en"])
            #expect(books.map(\.isbn) == [nil, nil])
            #expect(books.map(\.shortTitle) == ["Dun", "Emm"])
            #expect(books.compactMap(\.managedObject?.objectID) == ids)
        }
        try store.close()
    }
}
