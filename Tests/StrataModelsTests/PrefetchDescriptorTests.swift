import Foundation
import StrataModels
import Testing

/// `FetchDescriptor.relationshipKeyPathsForPrefetching` loads the models' relationships with
/// the fetch, by key path.
@Suite struct PrefetchDescriptorTests {
    @Test func aDescriptorPrefetchesItsRelationshipsByKeyPath() throws {
        let typed = try TypedStore()
        let writer = typed.context()
        let listIDs = try writer.performAndWait {
            let lists = (0..<2).map { TodoList(title: "List \($0)") }
            for index in 0..<6 {
                let item = TodoItem(name: "Item \(index)", createdAt: Date(timeIntervalSince1970: Double(index)))
                item.list = lists[index % 2]
                writer.insert(item)
            }
            try writer.save()
            return lists.compactMap(\.persistentModelID)
        }
        for prefetching in [false, true] {
            let context = typed.context()
            try context.performAndWait { () throws in
                var descriptor = FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.createdAt)])
                if prefetching { descriptor.relationshipKeyPathsForPrefetching = [\.list] }
                let items = try context.fetch(descriptor)
                #expect(listIDs.filter { !context.object(with: $0).isFault }.count == (prefetching ? 2 : 0))
                #expect(items.map { $0.list?.title } == (0..<6).map { "List \($0 % 2)" })
            }
        }
        let context = typed.context()
        try context.performAndWait { () throws in
            var descriptor = FetchDescriptor<TodoList>()
            descriptor.relationshipKeyPathsForPrefetching = [\.items]
            let lists = try context.fetch(descriptor)
            #expect(lists.allSatisfy { $0.items.count == 3 && $0.items.allSatisfy { !($0.managedObject?.isFault ?? true) } })
            var bad = FetchDescriptor<TodoItem>()
            bad.relationshipKeyPathsForPrefetching = [\.name]
            #expect(throws: StrataError.self) { try context.fetch(bad) }
        }
    }
}
