// StrataShippingWriter <store-dir> <postgres-url>
//
// A test-only helper for `NetworkFaultTests`: a primary's process, killed with SIGKILL in the
// middle of a commit. It opens (or creates) the store with the people schema of the
// replication tests, starts a synchronous `Replicator` to the URL, and saves forever: save k
// inserts one person named "person k" aged k. After each save returns (its frame is durable
// locally and committed in PostgreSQL) it prints `acknowledged <LSN>`. It first prints
// `started <store ID>`. It stops only when killed, or on an error (`error: …`, exit 1).
import Foundation
import Strata
import StrataReplication

func report(_ line: String) {
    print(line)
    fflush(nil)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    report("error: usage: StrataShippingWriter <store-dir> <postgres-url>")
    exit(2)
}

do {
    let schema = try Schema {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("age", .int64, default: 0)
        }
    }
    let store = try PersistentStore.open(at: arguments[1], schema: schema)
    var options = Replicator.Options()
    options.mode = .synchronous
    options.timeout = .seconds(2)
    options.retryInterval = .milliseconds(100)
    let replicator = try Replicator(store: store, url: arguments[2], options: options)
    try replicator.start()
    report("started \(replicator.storeID)")
    let context = ObjectContext(store: store)
    var k: Int64 = 0
    while true {
        k += 1
        try context.performAndWait {
            let person = try context.insert("Person")
            try person.setValues(["name": .string("person \(k)"), "age": .int(k)])
            try context.save()
        }
        report("acknowledged \(store.lastLSN)")
    }
} catch {
    report("error: \(error)")
    exit(1)
}
