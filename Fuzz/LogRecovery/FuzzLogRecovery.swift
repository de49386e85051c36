// libFuzzer target: log recovery and replay (storage engine open + object-graph load).
//
// First input byte picks the mode:
//   even: the rest is the bytes of the store's only log segment (raw: headers, frames,
//         tails); the store is opened writable (strict, then point-in-time) — it must open
//         or fail with an error, never crash, and reopen the same way after that.
//   odd:  the rest is a list of transactions (kind byte, 16-bit length, payload) appended
//         with valid frames after a real store's metadata, so the changeset and batch-record
//         decoders and their replay are reached behind the checksums.
import Foundation
@testable import Strata
@testable import StrataStorage
import StrataTestSupport

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    FuzzSupport.writeSeedsIfAsked {
        var seeds: [[UInt8]] = []
        for (name, bytes) in FuzzSupport.sampleFiles(checkpoint: false) where name.hasSuffix(".log") { seeds.append([0] + bytes) }
        var structured: [UInt8] = [1]
        for record in FuzzSupport.sampleRecords().dropFirst() {
            structured += [record.kind, UInt8(record.payload.count & 0xFF), UInt8(record.payload.count >> 8 & 0xFF)] + record.payload
            seeds.append(structured)
        }
        return seeds
    }
    return 0
}

/// A new store's disk (its metadata transaction only), made once.
let emptyStore: SimulatedFileSystem = {
    let fs = SimulatedFileSystem()
    try! PersistentStore.open(at: FuzzSupport.directory, schema: FuzzSupport.schema, options: FuzzSupport.options(fs)).close()
    return fs
}()

func openAndUse(_ fs: SimulatedFileSystem, recovery: RecoveryMode) {
    guard let store = try? PersistentStore.open(at: FuzzSupport.directory, schema: nil, options: FuzzSupport.options(fs, recovery: recovery)) else { return }
    // What opened must be usable: fetch everything, then save one more object.
    let context = ObjectContext(store: store)
    context.performAndWait {
        for entity in ["Parent", "Child"] {
            guard let objects = try? context.fetch(FetchRequest(entityName: entity)) else { continue }
            for object in objects { _ = try? object.value(forKey: entity == "Parent" ? "name" : "note") }
        }
        if let object = try? context.insert("Parent") {
            _ = try? object.setValue("after recovery", forKey: "name")
            _ = try? context.save()
        }
    }
    try? store.close()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeRawBufferPointer(start: start, count: count)))
    let mode = input.byte()
    if mode % 2 == 0 {
        let fs = SimulatedFileSystem()
        try? fs.createDirectory(FuzzSupport.directory)
        let segment = "\(FuzzSupport.directory)/wal-00000000000000000001.log"
        guard let file = try? fs.open(segment, mode: .createNew) else { return 0 }
        try? file.writeAll(input.rest(), at: 0)
        try? file.sync()
        try? fs.syncDirectory(FuzzSupport.directory)
        let copy = fs.processCrashImage()
        openAndUse(fs, recovery: .strict)
        openAndUse(fs, recovery: .strict)
        openAndUse(copy, recovery: .pointInTime)
    } else {
        let fs = emptyStore.processCrashImage()
        guard let (engine, _) = try? StorageEngine.open(at: FuzzSupport.directory, options: FuzzSupport.options(fs).storage) else { return 0 }
        while !input.isAtEnd {
            let kind = input.byte()
            let payload = input.take(input.uint16())
            _ = try? engine.append(kind: kind, payload: payload)
        }
        try? engine.close()
        openAndUse(fs, recovery: .strict)
    }
    return 0
}
