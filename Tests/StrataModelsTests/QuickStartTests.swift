import Foundation
import StrataModels
import Testing

@Suite struct QuickStartTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The README's quick start is `TodoModels.swift` followed by the body of
    /// `quickStart()`, character for character, so compiling this target compiles it.
    @Test func theReadmeQuickStartIsTheCodeThisTargetCompiles() throws {
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Quick start").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```").first)
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let models = try String(contentsOf: here.appendingPathComponent("TodoModels.swift"), encoding: .utf8)
        let source = try String(contentsOf: here.appendingPathComponent("QuickStart.swift"), encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("func quickStart()") })
        let end = try #require(lines.lastIndex { $0 == "}" })
        let body = lines[(start + 1)..<end].map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : $0 }.joined(separator: "\n")
        #expect(block == models + "\n" + body + "\n")
    }

    /// And it runs: a to-do list with three items, all checked by the batch update.
    @Test func theReadmeQuickStartRuns() async throws {
        let path = FileManager.default.currentDirectoryPath + "/todo.strata"
        try? FileManager.default.removeItem(atPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await quickStart()
        let store = try PersistentStore.open(at: path, schema: Schema(TodoList.self, TodoItem.self))
        let context = ObjectContext(store: store)
        try context.performAndWait {
            #expect(try context.fetchCount(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.done })) == 3)
            let home = try #require(try context.fetch(FetchDescriptor<TodoList>()).first)
            #expect(home.items.map(\.name) == ["Buy milk"])
        }
        try store.close()
    }
}
