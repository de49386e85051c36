import Foundation
import Strata
import StrataBenchModels

/// strata-bench's lists schema (`list-items`).
let listsSchema = ListsFixture.schema

/// Items per list, as in strata-bench.
let itemsPerList = ListsFixture.itemsPerList

/// Builds a checkpointed lists store at `directory` as strata-bench's fixture does (the lists,
/// then the `rows` as items, 1,000 per list in key order, by batch inserts) and reopens it.
func reopenedListsStore(_ directory: String) throws -> PersistentStore {
    let store = try PersistentStore.open(at: directory, schema: listsSchema, options: options)
    _ = try store.execute(BatchInsertRequest(entityName: "TodoList", count: (rows.count + itemsPerList - 1) / itemsPerList) { index, row in
        row["title"] = .string("List \(index + 1)")
    })
    let items = rows
    _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", count: items.count) { index, row in
        row["name"] = .string(items[index].name)
        row["createdAt"] = .date(items[index].createdAt)
        row["done"] = .bool(items[index].done)
        row["list"] = .int(Int64(index / itemsPerList + 1))
    })
    try store.checkpoint()
    try store.close()
    return try PersistentStore.open(at: directory, schema: listsSchema, options: options)
}

/// strata-bench's list-items: every list, then each list's items through the relationship
/// and each item's `name`, in a new context released inside the profiled call (the first
/// read builds the index on the inverse key, as in the harness). Returns the items read plus
/// the bytes of their names.
@inline(never) func profiledListItems(_ store: PersistentStore) throws -> Int {
    let context = ObjectContext(store: store)
    return try context.performAndWait {
        var items = 0, characters = 0
        for list in try context.fetch(FetchRequest(entityName: "TodoList")) {
            for item in try list.objects(forKey: "items") {
                items += 1
                characters &+= try item.string("name")?.utf8.count ?? 0
            }
        }
        precondition(items == rows.count, "read \(items) items through the lists, not \(rows.count)")
        return items &+ characters
    }
}
