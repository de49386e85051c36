import Foundation
import StrataModels
import Testing

@Suite struct PredicateTranslationTests {
    @Test func translatesToTheEnginesPredicate() throws {
        let name = "milk"
        let descriptor = FetchDescriptor<TodoItem>(predicate: #Predicate { !$0.done && $0.name.contains(name) },
                                                   sortBy: [SortDescriptor(\.createdAt, order: .reverse)])
        let request = try descriptor.fetchRequest()
        #expect(request.entityName == "TodoItem")
        #expect(request.predicate == (try ObjectPredicate(format: "NOT done == YES AND name CONTAINS %@", name)))
        #expect(request.sortKeys == [SortKey("createdAt", ascending: false)])
    }

    @Test func enumsCompareByRawValueAndRelationshipsByKeyPath() throws {
        let high = Priority.high
        let request = try FetchDescriptor<TodoItem>(predicate: #Predicate { $0.priority == high && $0.list?.title == "Home" }).fetchRequest()
        #expect(request.predicate == (try ObjectPredicate(format: "priority == 'high' AND list.title == 'Home'")))
    }

    @Test func toManyContainsWhereAndCountRunAsAnyAndCount() throws {
        let typed = try TypedStore()
        let context = typed.context()
        try context.performAndWait {
            for (title, names) in [("a", ["x", "y"]), ("b", ["y"]), ("c", [])] {
                let list = TodoList(title: title)
                context.insert(list)
                for name in names {
                    let item = TodoItem(name: name)
                    item.list = list
                    context.insert(item)
                }
            }
            try context.save()
            let withX = try context.fetch(FetchDescriptor<TodoList>(predicate: #Predicate { $0.items.contains { $0.name == "x" } }))
            #expect(withX.map(\.title) == ["a"])
            let nonEmpty = try context.fetch(FetchDescriptor<TodoList>(predicate: #Predicate { $0.items.count > 0 }, sortBy: [SortDescriptor(\.title, comparator: .lexical)]))
            #expect(nonEmpty.map(\.title) == ["a", "b"])
            let allY = try context.fetch(FetchDescriptor<TodoList>(predicate: #Predicate { $0.items.allSatisfy { $0.name == "y" } }, sortBy: [SortDescriptor(\.title, comparator: .lexical)]))
            #expect(allY.map(\.title) == ["b", "c"])
        }
    }

    @Test func anUntranslatableExpressionIsATypedErrorNamingIt() throws {
        let typed = try TypedStore(TodoList.self, TodoItem.self, Kinds.self, Person.self, Team.self)
        let context = typed.context()
        context.performAndWait {
            #expect {
                try context.fetch(FetchDescriptor<Person>(predicate: #Predicate { $0.age + 1 > 3 }))
            } throws: { error in
                let error = error as? StrataError
                return error?.code == .unsupportedPredicate && error?.message.contains("Arithmetic") == true
            }
            #expect {
                try context.fetch(FetchDescriptor<Kinds>(predicate: #Predicate { $0.decimal > 1 }))
            } throws: { ($0 as? StrataError)?.code == .unsupportedPredicate && ($0 as? StrataError)?.message.contains("Decimal") == true }
            #expect {
                try context.fetch(FetchDescriptor<TodoList>(predicate: #Predicate { $0.items.contains { $0.done && $0.name == "x" } }))
            } throws: { ($0 as? StrataError)?.code == .unsupportedPredicate }
            #expect {
                try context.fetch(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.isSelected }))
            } throws: { ($0 as? StrataError)?.message.contains("not a persisted property") == true }
        }
    }

    @Test func sortDescriptorsNeedAStoredAttribute() throws {
        #expect(throws: StrataError.self) {
            try FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.isSelected.description)]).fetchRequest()
        }
        // SortDescriptor(\.name) compares Strings as Comparable: code points, as SortKey does.
        #expect(try FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.name)]).fetchRequest().sortKeys == [SortKey("name")])
    }
}
