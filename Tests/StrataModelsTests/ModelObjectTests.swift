import Foundation
import Observation
import StrataModels
import Testing

@Suite struct ModelObjectTests {
    @Test func everyKindRoundTripsThroughTheStore() throws {
        let typed = try TypedStore()
        let uuid = UUID()
        let writer = typed.context()
        try writer.performAndWait {
            let k = Kinds()
            k.flag = true; k.int = -42; k.int16 = 16; k.int32 = 32; k.int64 = .max; k.double = 2.5; k.float = 1.25
            k.string = "héllo"; k.date = Date(timeIntervalSince1970: 1_000); k.uuid = uuid; k.data = Data([1, 2, 3])
            k.url = URL(string: "https://example.com/a?b=c")!; k.decimal = Decimal(string: "12345678901234567890.125")!
            k.priority = .high; k.level = .three; k.address = Address(street: "1 Main St", city: "Springfield")
            k.optionalFlag = false; k.optionalInt = 7; k.optionalString = nil; k.optionalDate = Date(timeIntervalSince1970: 5)
            k.optionalDecimal = 1.5; k.optionalPriority = .low; k.optionalLevel = nil; k.optionalAddress = Address(street: "x", city: "y")
            writer.insert(k)
            try writer.save()
        }
        let reader = typed.context()
        try reader.performAndWait {
            let k = try #require(try reader.fetch(FetchDescriptor<Kinds>()).first)
            #expect(k.flag == true && k.int == -42 && k.int16 == 16 && k.int32 == 32 && k.int64 == .max)
            #expect(k.double == 2.5 && k.float == 1.25 && k.string == "héllo")
            #expect(k.date == Date(timeIntervalSince1970: 1_000) && k.uuid == uuid && k.data == Data([1, 2, 3]))
            #expect(k.url == URL(string: "https://example.com/a?b=c")! && k.decimal == Decimal(string: "12345678901234567890.125")!)
            #expect(k.priority == .high && k.level == .three && k.address == Address(street: "1 Main St", city: "Springfield"))
            #expect(k.optionalFlag == false && k.optionalInt == 7 && k.optionalString == nil)
            #expect(k.optionalDate == Date(timeIntervalSince1970: 5) && k.optionalDecimal == 1.5)
            #expect(k.optionalPriority == .low && k.optionalLevel == nil && k.optionalAddress == Address(street: "x", city: "y"))
            // The untyped view of the same object.
            #expect(try k.managedObject?.string("priority") == "high")
            #expect(try k.managedObject?.int("level") == 3)
        }
    }

    @Test func eachObjectHasOneModelAndItIsTheManagedObjectsFace() throws {
        let typed = try TypedStore()
        let context = typed.context()
        try context.performAndWait {
            let item = TodoItem(name: "a")
            context.insert(item)
            try context.save()
            let first = try context.fetch(FetchDescriptor<TodoItem>())
            let second = try context.fetch(FetchDescriptor<TodoItem>())
            #expect(first[0] === item && second[0] === item)
            try item.managedObject?.setValue("b", forKey: "name")
            #expect(item.name == "b")
            #expect(item.hasChanges && item.persistentModelID != nil)
        }
    }

    @Test func anUntypedObjectHasATypedFace() throws {
        let typed = try TypedStore()
        let context = typed.context()
        try context.performAndWait {
            let object = try context.insert("TodoItem")
            try object.setValue("untyped", forKey: "name")
            let item = try context.model(for: object, as: TodoItem.self)
            #expect(item.name == "untyped" && item.managedObject === object)
            #expect(try context.model(for: object, as: TodoItem.self) === item)
            #expect(throws: StrataError.self) { try context.model(for: object, as: TodoList.self) }
        }
    }

    /// A model made by its initializer keeps what it is given until it is inserted: reads
    /// give the last value set (placeholders for none), and insertion makes those values
    /// the new object's row, relationships included.
    @Test func aModelNotInsertedYetKeepsItsValuesThroughInsertion() throws {
        let typed = try TypedStore()
        let context = typed.context()
        let home = TodoList(title: "Home")
        let milk = TodoItem(name: "milk", createdAt: Date(timeIntervalSince1970: 10))
        milk.name = "oat milk"
        milk.notes = "2 l"
        milk.notes = nil
        milk.priority = .high
        milk.list = home
        #expect(milk.name == "oat milk" && milk.notes == nil && milk.priority == .high && !milk.done)
        #expect(milk.list === home && home.items.isEmpty)   // the inverse is kept once inserted
        let k = Kinds()
        #expect(k.int == 0 && k.string == "" && k.optionalInt == nil)
        k.int64 = 64; k.optionalString = "set"
        #expect(k.int64 == 64 && k.optionalString == "set" && k.int == 0)
        try context.performAndWait {
            context.insert(milk)
            context.insert(k)
            #expect(milk.name == "oat milk" && milk.list === home && home.items.map(\.name) == ["oat milk"])
            try context.save()
        }
        let reader = typed.context()
        try reader.performAndWait {
            let item = try #require(try reader.fetch(FetchDescriptor<TodoItem>()).first)
            #expect(item.name == "oat milk" && item.createdAt == Date(timeIntervalSince1970: 10))
            #expect(item.notes == nil && item.priority == .high && !item.done && item.list?.title == "Home")
            let kinds = try #require(try reader.fetch(FetchDescriptor<Kinds>()).first)
            #expect(kinds.int64 == 64 && kinds.optionalString == "set" && kinds.int == 0 && kinds.optionalInt == nil)
        }
    }

    @Test func relationshipsKeepTheirInversesAndCascade() throws {
        let typed = try TypedStore()
        let context = typed.context()
        try context.performAndWait {
            let home = TodoList(title: "Home")
            let milk = TodoItem(name: "milk")
            let eggs = TodoItem(name: "eggs")
            home.items = [milk, eggs]          // before any insert: inserted with the list
            context.insert(home)
            #expect(milk.modelContext === context && eggs.list === home)
            try context.save()
            #expect(home.items.map(\.name).sorted() == ["eggs", "milk"])
            milk.list = nil
            #expect(home.items.map(\.name) == ["eggs"])
            let bread = TodoItem(name: "bread")
            bread.list = home                  // a new model set on an inserted one is inserted too
            context.insert(bread)
            #expect(home.items.count == 2)
            try context.save()
            context.delete(home)
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<TodoItem>()) == 1) // milk left the list before
        }
    }

    @Test func observersSeeSettersRefreshesAndMerges() throws {
        let typed = try TypedStore()
        let context = typed.context()
        let other = typed.context()
        let id = try context.performAndWait {
            let item = TodoItem(name: "a")
            context.insert(item)
            try context.save()
            return item.persistentModelID!
        }
        try context.performAndWait {
            let item = try #require(try context.existingModel(for: id, as: TodoItem.self))
            let changes = Counter()
            withObservationTracking { _ = item.name } onChange: { changes.count += 1 }
            item.name = "b"
            #expect(changes.count == 1)
            try context.save()
            withObservationTracking { _ = item.name } onChange: { changes.count += 1 }
            try other.performAndWait {
                let theirs = try #require(try other.existingModel(for: id, as: TodoItem.self))
                theirs.name = "c"
                try other.save()
            }
            context.refresh(item.managedObject!, mergeChanges: true)
            #expect(changes.count == 2)
            #expect(item.name == "c")
        }
    }

    @Test func aDeletedRowReadsAsPlaceholderAndLoadValuesThrows() throws {
        let typed = try TypedStore()
        let context = typed.context()
        let other = typed.context()
        try context.performAndWait {
            let item = TodoItem(name: "gone")
            context.insert(item)
            try context.save()
            let id = item.persistentModelID!
            try other.performAndWait {
                other.delete(try #require(try other.existingModel(for: id, as: TodoItem.self)))
                try other.save()
            }
            context.refresh(item.managedObject!, mergeChanges: false)
            #expect(item.name == "")
            #expect(throws: StrataError.self) { try item.loadValues() }
        }
    }

    @Test func anInsertThatCannotHappenFailsTheNextSave() throws {
        let typed = try TypedStore(TodoList.self, TodoItem.self)
        let context = typed.context()
        context.performAndWait {
            context.insert(Kinds())
            #expect { try context.save() } throws: { ($0 as? StrataError)?.code == .unknownEntity }
        }
    }

    @Test func attributeOptionsValidateAtSave() throws {
        let typed = try TypedStore()
        let context = typed.context()
        context.performAndWait {
            let k = Kinds()
            k.code = ""
            context.insert(k)
            #expect { try context.save() } throws: { ($0 as? StrataError)?.code == .validation }
        }
    }
}

/// A mutable count for observation callbacks (all on one queue in these tests).
final class Counter: @unchecked Sendable {
    // @unchecked: touched only on the context's queue, where the test and the observation
    // callbacks (called synchronously by the setter or refresh) run.
    var count = 0
}
