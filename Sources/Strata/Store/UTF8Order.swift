import Foundation

/// Strings ordered by their UTF-8 bytes wherever the bytes give `String`'s own order.
///
/// `String` orders by canonical equivalence: it compares the strings' NFC forms scalar by
/// scalar, and UTF-8's byte order is scalar order, so the bytes of two NFC strings compare
/// exactly as the strings do. A string that is not NFC can compare otherwise
/// ("e\u{301}x" is "éx" and sorts after "f", though its first byte sorts before), so the
/// bytes decide only where no normalization can change them: the first differing byte of
/// each string is ASCII and so is the byte after it (or the string ends there). An ASCII
/// character is a starter that never composes with the character before it, and one
/// followed by ASCII composes with nothing after it, so both NFC forms are the common
/// prefix's NFC form followed by those two ASCII characters. Anything else is left to
/// `String` (`nil`), so the answers are always `String`'s: index searches that use this
/// find what the general fetch path, which compares `String`s, finds.
enum UTF8Order {
    /// The order of `a` against `b` under `String`'s `<` and `==`, or `nil` when only a
    /// comparison of the strings can tell.
    /// - Complexity: O(length of the common prefix).
    @inline(__always)
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> ComparisonResult? {
        let common = min(a.count, b.count)
        var i = 0
        while i < common, a[i] == b[i] { i += 1 }
        if i == common {
            // Equal bytes are equal strings; a proper prefix sorts first when what follows
            // it starts with an ASCII character.
            if a.count == b.count { return .orderedSame }
            let next = a.count > b.count ? a[common] : b[common]
            guard next < 0x80 else { return nil }
            return a.count < b.count ? .orderedAscending : .orderedDescending
        }
        guard a[i] < 0x80, b[i] < 0x80,
              i + 1 == a.count || a[i + 1] < 0x80, i + 1 == b.count || b[i + 1] < 0x80 else { return nil }
        return a[i] < b[i] ? .orderedAscending : .orderedDescending
    }

    /// The order of `value` against `key` (whose UTF-8 is `keyBytes`) under `String`'s `<`
    /// and `==`: by bytes where they decide, by comparing the strings otherwise.
    @inline(__always)
    static func compare(_ value: String, _ key: String, keyBytes: UnsafeBufferPointer<UInt8>) -> ComparisonResult {
        if let known = value.utf8.withContiguousStorageIfAvailable({ compare($0, keyBytes) }), let order = known {
            return order
        }
        if value == key { return .orderedSame }
        return value < key ? .orderedAscending : .orderedDescending
    }
}
