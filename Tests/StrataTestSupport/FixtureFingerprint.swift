import Foundation
import StrataStorage

/// A checked-in fixture file's size and CRC-32C: a test pins every file of a fixture with
/// these, so that a regenerated or edited fixture is noticed (Fixtures/README.md).
public struct FixtureFingerprint: Hashable, Sendable, CustomStringConvertible {
    /// The file's size in bytes.
    public var size: Int
    /// The CRC-32C of its bytes.
    public var crc: UInt32

    /// A fingerprint with these values.
    public init(_ size: Int, _ crc: UInt32) {
        self.size = size
        self.crc = crc
    }

    /// Every file of `directory`, by name.
    public static func of(directory: String) throws -> [String: FixtureFingerprint] {
        var result: [String: FixtureFingerprint] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name)")))
            result[name] = FixtureFingerprint(bytes.count, CRC32C.checksum(bytes))
        }
        return result
    }

    public var description: String { "(\(size), 0x\(String(crc, radix: 16)))" }
}
