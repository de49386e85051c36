import Foundation
import Testing
@testable import Strata

/// glibc's `malloc_usable_size` (declared in `malloc.h`, which the Glibc module leaves out).
@_silgen_name("malloc_usable_size") private func mallocUsableSize(_ pointer: UnsafeMutableRawPointer) -> Int

/// An object stores only its primary key (its ID is made from its context's store and
/// entity), reaches its context through the lifetime it shares with the context's other
/// objects, shares one slot between its committed values and a fault hint, and boxes what
/// few objects have, and keeps a fault hint's fetch number in its row; so it stays a 96-byte
/// block that malloc serves from its fast bins.
@Suite struct ManagedObjectLayoutTests {
    /// The bytes malloc gave `object`'s block.
    static func blockSize(_ object: ManagedObject) -> Int {
        mallocUsableSize(Unmanaged.passUnretained(object).toOpaque())
    }

    /// A million fetched objects are a million blocks: at 88 usable bytes a block is 96
    /// bytes of heap (at 104, 112) and comes from malloc's fast bins (blocks up to 128
    /// bytes); a bigger one costs more memory, and past 128 bytes goes through the slower
    /// bins on every allocation and free.
    @Test func faultsFiredObjectsAndInsertedObjectsFitAFastBinBlock() throws {
        try ObjectRegistryTests.withPeople(20) { harness, reader throws in
            try reader.performAndWait { () throws in
                let results = try reader.fetch(FetchRequest("Person", sort: [SortKey("age")]))
                #expect(results[0].isFault)
                #expect(Self.blockSize(results[0]) <= 88)
                _ = try results[0].string("name")
                #expect(!results[0].isFault)
                #expect(Self.blockSize(results[0]) <= 88)
            }
            try harness.context.performAndWait { () throws in
                let inserted = try harness.context.insert("Person")
                #expect(Self.blockSize(inserted) <= 88)
            }
        }
    }

    /// A fetch holds one item per match until its results are built (a sorted fetch of every
    /// row holds them through the sort): 24 bytes each, the key and a 32-bit chunk and row.
    @Test func aFetchedRowsPlaceTakesTwentyFourBytes() {
        #expect(MemoryLayout<FetchItem>.stride == 24)
        guard case .row(let key, let chunk, let row) = FetchItem.at(key: -7, chunk: 70_000, row: 1_023) else {
            Issue.record("not a row")
            return
        }
        #expect(key == -7 && chunk == 70_000 && row == 1_023)
    }

    @Test func anObjectsIDIsTheOneItWasMadeFor() throws {
        try ObjectRegistryTests.withPeople(5) { harness, reader throws in
            let (ids, inserted) = try harness.context.performAndWait { () throws in
                let people = try harness.context.fetch(FetchRequest("Person", sort: [SortKey("age")]))
                let ids = people.map(\.objectID)
                let inserted = try harness.context.insert("Person")
                #expect(inserted.objectID.entityName == "Person")
                #expect(inserted.entityName == "Person")
                #expect(inserted.objectID.storeID == harness.store.storeID)
                return (ids, inserted.objectID)
            }
            try reader.performAndWait { () throws in
                for id in ids {
                    let object = reader.object(with: id)
                    #expect(object.objectID == id)
                    #expect(object.entityName == "Person")
                }
                #expect(reader.object(with: inserted).objectID == inserted)
            }
        }
    }

    /// An ID the store cannot resolve keeps all of itself (store and entity name), and its
    /// object says why it cannot be used.
    @Test func anIDOfAnotherStoreOrEntityKeepsItsParts() throws {
        try ObjectRegistryTests.withPeople(3) { _, reader throws in
            try reader.performAndWait { () throws in
                let otherStore = ObjectID(storeID: UUID(), entityName: "Person", primaryKey: 2)
                let unknownEntity = ObjectID(storeID: reader.store.storeID, entityName: "Starship", primaryKey: 2)
                for id in [otherStore, unknownEntity] {
                    let object = reader.object(with: id)
                    #expect(object.objectID == id)
                    #expect(object.entityName == id.entityName)
                    #expect(throws: StrataError.self) { try object.string("name") }
                }
                #expect(try reader.object(with: ObjectID(storeID: reader.store.storeID, entityName: "Person", primaryKey: 2)).string("name") != nil)
            }
        }
    }

    /// A fault's hint and its committed values share one slot: firing from the hint makes
    /// the hinted row the values, and a refresh drops either.
    @Test func aHintBecomesTheValuesAndARefreshDropsThem() throws {
        try ObjectRegistryTests.withPeople(4) { _, reader throws in
            try reader.performAndWait { () throws in
                let results = try reader.fetch(FetchRequest("Person", sort: [SortKey("age")]))
                let object = results[1]
                #expect(object.hasFaultHint)
                #expect(object.committed == nil)
                #expect(object.committedVersion == 0)
                let hinted = object.faultHint!.rowVersion
                // The hint of the newest fetch, with nothing published since, is taken as it
                // is: the row is not looked up again (its fetch's number is kept with it).
                #expect(object.takeHint(in: reader), "the newest fetch's hint was not taken")
                try object.fireFault()
                #expect(!object.hasFaultHint)
                #expect(object.committed != nil)
                #expect(object.committedVersion == hinted)
                #expect(try object.string("name") == "n1")
                reader.refresh(object, mergeChanges: false)
                #expect(object.isFault)
                #expect(!object.hasFaultHint)
                #expect(object.committedVersion == 0)
                #expect(try object.string("name") == "n1")
            }
        }
    }

    /// An object keeps the number of the version its hint came from, not the LSN: a hint from
    /// a fetch before a save must not be taken after another fetch at the newer version,
    /// though the store has published nothing since that second fetch.
    @Test func aHintFromAnOlderVersionIsNotTakenAfterAFetchOfANewerOne() throws {
        try ObjectRegistryTests.withPeople(6) { harness, reader throws in
            let faults = try reader.performAndWait { () throws -> [ManagedObject] in
                var request = try FetchRequest("Person", sort: [SortKey("age")])
                request.fetchLimit = 3
                return Array(try reader.fetch(request))
            }
            let id = reader.performAndWait { faults[2].objectID }
            try harness.context.performAndWait { () throws in
                try harness.context.object(with: id).setValue("changed", forKey: "name")
                try harness.context.save()
            }
            try reader.performAndWait { () throws in
                // A fetch at the newer version: it hints the objects it makes (the last three)
                // and leaves the first three with the older fetch's hints.
                let newer = try reader.fetch(FetchRequest("Person", sort: [SortKey("age")]))
                #expect(newer.count == 6)
                #expect(newer[3].hasFaultHint, "the newer fetch gave hints")
                #expect(faults[2].hasFaultHint, "still holds the older fetch's hint")
                #expect(try faults[2].string("name") == "changed")
                #expect(try newer[4].string("name") == "n4")
            }
        }
    }
}
