import Testing
import StrataTestSupport
@testable import StrataStorage

/// The hardware CRC-32C (when this CPU has one) and the portable software path must give the
/// same values, and both the standard check value, at every length and alignment.
@Suite struct CRC32CTests {
    static let checkInput = Array("123456789".utf8)

    @Test func checkValue() {
        #expect(CRC32C.checksum(Self.checkInput) == 0xE306_9283)
        let software = Self.checkInput.withUnsafeBytes { CRC32C.finalize(CRC32C.softwareUpdate(CRC32C.initial, $0)) }
        #expect(software == 0xE306_9283)
        if CRC32C.usesHardware {
            let hardware = Self.checkInput.withUnsafeBytes { CRC32C.finalize(CRC32C.hardwareUpdate(CRC32C.initial, $0)) }
            #expect(hardware == 0xE306_9283)
        }
        print("CRC32C uses hardware: \(CRC32C.usesHardware)")
    }

    /// Every length from 0 to 300 and a few large ones, at every start alignment 0..<16, from
    /// random running values: hardware, software and the public entry point agree.
    @Test func hardwareAndSoftwareAgreeAtEveryLengthAndAlignment() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix64(seed: seed)
        let buffer = (0..<(70_000 + 16)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let lengths = Array(0...300) + [1023, 1024, 1025, 4096 + 7, 65_536 + 3, 70_000]
        buffer.withUnsafeBytes { all in
            for length in lengths {
                for alignment in 0..<16 {
                    let slice = UnsafeRawBufferPointer(rebasing: all[alignment..<alignment + length])
                    let start = UInt32(truncatingIfNeeded: rng.next())
                    let software = CRC32C.softwareUpdate(start, slice)
                    #expect(CRC32C.update(start, slice) == software, "seed \(seed), length \(length), alignment \(alignment)")
                    if CRC32C.usesHardware {
                        #expect(CRC32C.hardwareUpdate(start, slice) == software, "seed \(seed), length \(length), alignment \(alignment)")
                    }
                }
            }
        }
    }

    /// Checksumming in pieces equals checksumming the whole, wherever the split falls.
    @Test func piecesEqualWhole() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix64(seed: seed)
        let bytes = (0..<200).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let whole = CRC32C.checksum(bytes)
        bytes.withUnsafeBytes { all in
            for split in 0...bytes.count {
                let first = CRC32C.update(CRC32C.initial, UnsafeRawBufferPointer(rebasing: all[..<split]))
                let both = CRC32C.update(first, UnsafeRawBufferPointer(rebasing: all[split...]))
                #expect(CRC32C.finalize(both) == whole, "seed \(seed), split \(split)")
            }
        }
    }
}
