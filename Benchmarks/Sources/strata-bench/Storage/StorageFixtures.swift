import Foundation
import StrataStorage

/// What the storage engine micro-benchmarks share: payloads, the kind byte of their records,
/// and a fresh engine.
enum StorageFixtures {
    /// The frame kind the micro-benchmarks log (the engine does not interpret kinds).
    static let kind: UInt8 = 0xB0

    /// `count` incompressible bytes from `seed` (so LZ4 stores them as they are, and a disk
    /// that compresses or deduplicates cannot flatter the figure).
    static func incompressibleBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            withUnsafeBytes(of: random.next()) { bytes += $0 }
        }
        return Array(bytes.prefix(count))
    }

    /// A payload the size of a one-object save (about what a to-do item's change set takes):
    /// `smallPayloadSize` bytes, half text-like and half random, different for each `index`.
    static func smallPayload(_ index: Int) -> [UInt8] {
        var payload = Array("TodoItem insert #\(index): Call the plumber tomorrow ".utf8)
        payload += incompressibleBytes(smallPayloadSize - payload.count, seed: UInt64(index))
        return payload
    }

    /// The size of ``smallPayload(_:)``.
    static let smallPayloadSize = 128

    /// Opens a new engine in `run.directory/engine` with `durability`.
    static func openEngine(_ run: RunContext, durability: Durability = .always) throws -> StorageEngine {
        var options = StorageOptions()
        options.durability = durability
        let (engine, _) = try StorageEngine.open(
            at: run.directory.appendingPathComponent("engine").path, options: options)
        return engine
    }
}
