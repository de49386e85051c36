// StrataFollowWriter <store-dir> <steps> <checkpoint-every>
//
// A test-only helper for `FollowerProcessTests`: the writer process that a read-only store in
// the test process follows. The store must exist (the test creates it with the schema below
// and one Counter row). Step j (1…steps) is one transaction:
//   - j a multiple of 10: a batch update setting every Item's tag to j;
//   - otherwise a save that inserts Item(seq: j, tag: 0), sets the Counter's value to j and,
//     when j is a multiple of 7, deletes the Item with seq j - 3 if there is one.
// Every <checkpoint-every> steps it checkpoints (the log is rotated, a snapshot written and
// the old segments deleted); segments are small, so they also rotate on their own.
// It prints `done <last LSN>` and exits 0, or `error: <…>` and exits 1.
import Foundation
import Strata

func report(_ line: String) {
    print(line)
    fflush(nil)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let steps = Int(arguments[2]), let every = Int(arguments[3]), every > 0 else {
    report("error: usage: StrataFollowWriter <store-dir> <steps> <checkpoint-every>")
    exit(2)
}

do {
    let schema = try Schema {
        Entity("Item") {
            Attribute("seq", .int64)
            Attribute("tag", .int64, default: 0)
        }
        Entity("Counter") {
            Attribute("value", .int64, default: 0)
        }
    }
    var options = PersistentStore.Options()
    options.storage.durability = .never
    options.storage.segmentSize = 4096
    options.automaticCheckpointBytes = nil
    let store = try PersistentStore.open(at: arguments[1], schema: schema, options: options)
    let context = ObjectContext(store: store)
    try context.performAndWait {
        guard let counter = try context.fetch(FetchRequest(entityName: "Counter")).first else {
            throw StrataError(.objectNotFound, "the store has no Counter row; create it first")
        }
        var items: [Int64: ObjectID] = [:]
        for step in 1...steps {
            let j = Int64(step)
            if step % 10 == 0 {
                _ = try store.execute(BatchUpdateRequest(entityName: "Item", propertiesToUpdate: ["tag": .constant(.int(j))]))
            } else {
                let item = try context.insert("Item")
                try item.setValues(["seq": .int(j), "tag": .int(0)])
                try counter.setValue(.int(j), forKey: "value")
                if step % 7 == 0, let victim = items.removeValue(forKey: j - 3) {
                    let object = try context.existingObject(with: victim)
                    context.refresh(object, mergeChanges: true)   // its row version after batch updates
                    context.delete(object)
                }
                try context.save()
                items[j] = item.objectID
            }
            if step % every == 0 { try store.checkpoint() }
        }
    }
    let last = store.lastLSN
    try store.close()
    report("done \(last)")
    exit(0)
} catch {
    report("error: \(error)")
    exit(1)
}
