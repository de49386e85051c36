internal import CCRC32C

/// CRC-32C (Castagnoli), the checksum of every frame, segment header and snapshot chunk.
///
/// Uses the CPU's CRC-32C instruction when it has one (SSE4.2 `crc32` on x86_64, ARMv8
/// `crc32c` on arm64 builds that target it; the `CCRC32C` target), otherwise a portable
/// software implementation slicing by 8 bytes. Both give identical values. Start with
/// ``initial``, ``update(_:_:)`` over each piece in order, and ``finalize(_:)`` the result.
public enum CRC32C {
    private static let polynomial: UInt32 = 0x82F6_3B78

    /// Eight lookup tables of 256 entries each, for slicing-by-8.
    private static let tables: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 8 * 256)
        for i in 0..<256 {
            var crc = UInt32(i)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ polynomial : crc >> 1 }
            table[i] = crc
        }
        for i in 0..<256 {
            for slice in 1..<8 {
                let previous = table[(slice - 1) * 256 + i]
                table[slice * 256 + i] = (previous >> 8) ^ table[Int(previous & 0xFF)]
            }
        }
        return table
    }()

    /// The running value to start from.
    public static let initial: UInt32 = 0xFFFF_FFFF

    /// Whether ``update(_:_:)`` uses the CPU's CRC-32C instruction.
    package static let usesHardware: Bool = strata_crc32c_hardware_available() != 0

    /// Folds `bytes` into the running value `crc`.
    /// - Complexity: O(n).
    public static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard usesHardware, let base = bytes.baseAddress else { return softwareUpdate(crc, bytes) }
        return strata_crc32c_hardware_update(crc, base, bytes.count)
    }

    /// ``update(_:_:)`` with the CPU instruction; only when ``usesHardware`` is true.
    package static func hardwareUpdate(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        precondition(usesHardware, "no hardware CRC-32C on this CPU")
        guard let base = bytes.baseAddress else { return crc }
        return strata_crc32c_hardware_update(crc, base, bytes.count)
    }

    /// ``update(_:_:)`` in portable Swift (table-driven, slicing by 8), whatever the CPU.
    package static func softwareUpdate(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = crc
        var index = 0
        let count = bytes.count
        tables.withUnsafeBufferPointer { t in
            while count - index >= 8 {
                let low = bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self).littleEndian ^ crc
                let high = bytes.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self).littleEndian
                crc = t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
                    ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
                index += 8
            }
            while index < count {
                crc = (crc >> 8) ^ t[Int((crc ^ UInt32(bytes[index])) & 0xFF)]
                index += 1
            }
        }
        return crc
    }

    /// The final checksum of a running value.
    public static func finalize(_ crc: UInt32) -> UInt32 { crc ^ 0xFFFF_FFFF }

    /// The CRC-32C of `bytes`.
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        finalize(update(initial, bytes))
    }

    /// The CRC-32C of `bytes`.
    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
