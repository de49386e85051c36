import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// `relationshipKeyPathsForPrefetching`: the destinations of a fetch's objects come back
/// loaded (not faults), to-one and to-many, through several steps and in batches; a bad path
/// is a typed error before anything is read.
@Suite struct PrefetchTests {
    /// Three authors with four books each (one book has no author), each book with two
    /// chapters; returns the authors' and the books' IDs.
    static func populate(_ fixture: StoreFixture) throws -> (authors: [ObjectID], books: [ObjectID]) {
        let context = fixture.context()
        return try context.performAndWait {
            var authors: [ManagedObject] = [], books: [ManagedObject] = []
            for a in 0..<3 {
                let author = try context.insert("Author")
                try author.setValue(.string("Author \(a)"), forKey: "name")
                authors.append(author)
            }
            for b in 0..<13 {
                let book = try context.insert("Book")
                try book.setValue(.string("Book \(b)"), forKey: "title")
                if b < 12 { try book.setObject(authors[b % 3], forKey: "author") }
                for c in 0..<2 {
                    let chapter = try context.insert("Chapter")
                    try chapter.setValue(.int(Int64(c)), forKey: "number")
                    try chapter.setObject(book, forKey: "book")
                }
                books.append(book)
            }
            try context.save()
            return (authors.map(\.objectID), books.map(\.objectID))
        }
    }

    @Test func toOneDestinationsComeBackLoaded() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let (authors, _) = try Self.populate(fixture)
        for prefetching in [false, true] {
            let context = fixture.context()
            try context.performAndWait { () throws in
                var request = FetchRequest(entityName: "Book", sortKeys: [SortKey("title")])
                if prefetching { request.relationshipKeyPathsForPrefetching = ["author"] }
                let books = try context.fetch(request)
                #expect(books.count == 13)
                // Before any book is read: the authors are registered and loaded only when prefetched.
                let loaded = authors.filter { !context.object(with: $0).isFault }
                #expect(loaded.count == (prefetching ? 3 : 0), "prefetching \(prefetching)")
                for book in books {
                    let title = try #require(try book.string("title"))
                    let number = Int(title.dropFirst(5))!
                    let author = try book.object(forKey: "author")
                    #expect(try author?.string("name") == (number < 12 ? "Author \(number % 3)" : nil))
                }
            }
        }
    }

    @Test func toManyDestinationsAndLongerPathsComeBackLoaded() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let (_, books) = try Self.populate(fixture)
        let context = fixture.context()
        try context.performAndWait { () throws in
            var request = FetchRequest(entityName: "Author")
            request.relationshipKeyPathsForPrefetching = ["books.chapters"]
            let authors = try context.fetch(request)
            #expect(authors.count == 3)
            // The twelve books with an author and their 24 chapters are loaded; the book with
            // no author is not.
            #expect(books.filter { !context.object(with: $0).isFault }.count == 12)
            #expect(context.object(with: books[12]).isFault)
            var chapters = 0
            for author in authors {
                let own = try author.objects(forKey: "books")
                #expect(own.count == 4 && own.allSatisfy { !$0.isFault })
                for book in own {
                    let parts = try book.objects(forKey: "chapters")
                    #expect(parts.count == 2 && parts.allSatisfy { !$0.isFault })
                    chapters += parts.count
                }
            }
            #expect(chapters == 24)
        }
    }

    @Test func batchesAndAsynchronousFetchesPrefetchToo() async throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let (authors, _) = try Self.populate(fixture)
        let context = fixture.context()
        try context.performAndWait { () throws in
            var request = FetchRequest(entityName: "Book", sortKeys: [SortKey("title")])
            request.fetchBatchSize = 2
            request.relationshipKeyPathsForPrefetching = ["author"]
            let books = try context.fetch(request)
            // "Book 0" and "Book 1" make the first batch: their authors, 0 and 1, are loaded.
            #expect(try books[0].string("title") == "Book 0")
            #expect(!context.object(with: authors[0]).isFault && !context.object(with: authors[1]).isFault)
        }
        let asyncContext = fixture.context()
        var request = FetchRequest(entityName: "Book")
        request.relationshipKeyPathsForPrefetching = ["author"]
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let asyncRequest = AsynchronousFetchRequest(fetchRequest: request) { result in
            let loaded = authors.filter { !asyncContext.object(with: $0).isFault }.count
            continuation.yield(result.finalResult == nil ? -1 : loaded)
            continuation.finish()
        }
        _ = try asyncContext.performAndWait { try asyncContext.execute(asyncRequest) }
        var loaded: Int?
        for await value in stream { loaded = value }
        #expect(loaded == 3)
    }

    @Test func aPathThatIsNotARelationshipIsATypedError() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        _ = try Self.populate(fixture)
        let context = fixture.context()
        for (path, mentions) in [("autor", "Did you mean 'author'?"), ("title", "no relationship named 'title'"),
                                 ("author.bokks", "Author has no relationship named 'bokks'")] {
            var request = FetchRequest(entityName: "Book")
            request.relationshipKeyPathsForPrefetching = [path]
            let error = context.performAndWait { () -> StrataError? in
                do { _ = try context.fetch(request); return nil } catch { return error as? StrataError }
            }
            #expect(error?.code == .unknownKey && error?.message.contains(mentions) == true, "\(path): \(String(describing: error))")
            #expect(throws: StrataError.self) { try context.execute(AsynchronousFetchRequest(fetchRequest: request) { _ in }) }
        }
    }
}
