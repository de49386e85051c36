import Crypto
import Foundation
import StrataEncryption
import StrataStorage

/// A key file for `--key-file` and `--new-key-file`: the 256-bit key of an encrypted store,
/// as 32 raw bytes, or as 64 hexadecimal characters with an optional trailing newline.
enum KeyFile {
    /// What a key file holds, for `--help` and error messages.
    static let formats = "32 raw bytes, or 64 hexadecimal characters (an optional trailing newline allowed)"

    /// The key in the file at `path`, which `option` named.
    ///
    /// - Throws: a usage failure naming the file when it cannot be read or is not a key file.
    static func read(_ path: String, option: String = "--key-file") throws -> SymmetricKey {
        let bytes: [UInt8]
        do { bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
        catch { throw InspectorFailure(.usage, "cannot read the key file \(path) (\(option)): \((error as NSError).localizedDescription)") }
        if bytes.count == 32 { return SymmetricKey(data: bytes) }
        var text = bytes
        if text.last == UInt8(ascii: "\n") { text.removeLast() }
        if text.last == UInt8(ascii: "\r") { text.removeLast() }
        guard bytes.count <= 66, text.count == 64 else {
            throw InspectorFailure(.usage, "the key file \(path) (\(option)) is \(bytes.count) bytes long; a key file holds \(formats), so 32, 64, 65 or 66 bytes.")
        }
        var key: [UInt8] = []
        key.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = hexValue(text[index]), let low = hexValue(text[index + 1]) else {
                throw InspectorFailure(.usage, "the key file \(path) (\(option)) has 64 characters but they are not all hexadecimal digits (0-9, a-f); a key file holds \(formats).")
            }
            key.append(high << 4 | low)
        }
        return SymmetricKey(data: key)
    }

    /// The cipher for the key in `path`, or `nil` without a path.
    static func cipher(_ path: String?, option: String = "--key-file") throws -> (any StoreCipher)? {
        try path.map { AESGCMStoreCipher(key: try read($0, option: option)) }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
