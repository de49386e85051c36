import Foundation

/// Strata's one order of strings, used by sorts, predicates (`<`, `<=`, `>`, `>=`,
/// `BETWEEN`), `@min`/`@max`, and indexes alike.
///
/// The rule: two strings compare by their Unicode scalar values after canonical composition
/// (NFC), scalar by scalar, a proper prefix first. It is not locale-aware (as Core Data's
/// non-localized `compare:`). Two strings are ``compare(_:_:)``-equal exactly when they are
/// canonically equivalent, which is when Swift's `==` says they are equal.
///
/// Swift documents the same rule for `String`'s `<`, but Swift 6.3.1 does not keep it for
/// some strings with combining marks: `"α\u{301}241ex" < "α"` is `false` although the first
/// is `"ά241ex"` in NFC and U+03AC < U+03B1, so `<` is not transitive there and an index
/// sorted by it is not in one order. This order is computed here instead.
///
/// For example:
/// ```swift
/// StringOrder.compare("\u{3B1}\u{301}241ex", "\u{3B1}")  // .orderedAscending (ά < α)
/// StringOrder.compare("e\u{301}", "\u{E9}")               // .orderedSame (both é)
/// ```
enum StringOrder {
    /// The order of `a` and `b`: `.orderedSame` exactly when `a == b`.
    ///
    /// UTF-8 byte order is scalar order, so the bytes decide wherever normalization cannot
    /// change the result: when the strings are equal bytes, or when the scalars around the
    /// first difference are below U+0300 (those are starters that never compose with what
    /// comes before them, so NFC leaves the common prefix and the differing scalars as they
    /// are). That covers ASCII and Latin-1 text without allocating; other strings are
    /// compared in NFC (``nfc(_:)``).
    /// - Complexity: O(length of the common prefix) on the byte path, O(n) otherwise.
    @inline(__always)
    static func compare(_ a: String, _ b: String) -> ComparisonResult {
        // `nil` when the bytes cannot decide (or a string is not contiguous UTF-8).
        let decided = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in compareBytes(x, y, normalized: false) } ?? nil
        } ?? nil
        return decided ?? compareNormalized(a, b)
    }

    /// Whether `a` comes before `b` in this order.
    @inline(__always)
    static func precedes(_ a: String, _ b: String) -> Bool {
        compare(a, b) == .orderedAscending
    }

    /// The NFC form of `string`: canonical decomposition, then composition, as NFC is
    /// defined. Foundation's `precomposedStringWithCanonicalMapping` alone leaves some
    /// strings uncomposed (on Linux, Swift 6.3.1: the Hangul syllable U+AC00 followed by the
    /// final jamo U+11A8 stays as it is instead of becoming U+AC01, though Swift's `==` says
    /// they are equal); from the decomposed form it composes them.
    static func nfc(_ string: String) -> String {
        string.decomposedStringWithCanonicalMapping.precomposedStringWithCanonicalMapping
    }

    /// The order of the NFC forms of `a` and `b`, by their UTF-8 bytes.
    @inline(never)
    private static func compareNormalized(_ a: String, _ b: String) -> ComparisonResult {
        let x = Array(nfc(a).utf8), y = Array(nfc(b).utf8)
        return x.withUnsafeBufferPointer { x in
            // The NFC forms' bytes always decide.
            y.withUnsafeBufferPointer { y in compareBytes(x, y, normalized: true) } ?? .orderedSame
        }
    }

    /// The byte order of `x` and `y` (well-formed UTF-8), or `nil` when it may differ from
    /// the NFC order and `normalized` is `false`.
    @inline(__always)
    static func compareBytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>,
                             normalized: Bool) -> ComparisonResult? {
        let i = commonPrefix(x, y), common = min(x.count, y.count)
        if i == common && x.count == y.count { return .orderedSame }
        guard normalized || (isSettled(x, at: i) && isSettled(y, at: i)) else { return nil }
        if i == common { return x.count < y.count ? .orderedAscending : .orderedDescending }
        return x[i] < y[i] ? .orderedAscending : .orderedDescending
    }

    /// The length of the common prefix of `x` and `y` in bytes, eight at a time.
    @inline(__always)
    private static func commonPrefix(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(x.count, y.count)
        var i = 0
        if common >= 8, let p = x.baseAddress, let q = y.baseAddress {
            let (u, v) = (UnsafeRawPointer(p), UnsafeRawPointer(q))
            while i + 8 <= common {
                let a = UInt64(littleEndian: u.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let b = UInt64(littleEndian: v.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                // In little-endian order the lowest differing bit is in the first differing byte.
                if a != b { return i + (a ^ b).trailingZeroBitCount / 8 }
                i += 8
            }
        }
        while i < common, x[i] == y[i] { i += 1 }
        return i
    }

    /// Whether NFC keeps the scalar at byte `i` of `bytes` (the first difference) and
    /// everything before it in place: that scalar and the next are below U+0300, so each has
    /// a normalization boundary before it. UTF-8 encodes those scalars in bytes below 0xCC
    /// (ASCII, or a lead byte 0xC2...0xCB and a continuation byte).
    @inline(__always)
    private static func isSettled(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        guard i < bytes.count else { return true }
        let byte = bytes[i], next: Int
        if byte < 0x80 {
            next = i + 1
        } else if byte & 0xC0 == 0x80 {
            // A difference inside a two-byte scalar: its lead byte is the one before.
            guard i > 0, bytes[i - 1] >= 0xC2, bytes[i - 1] < 0xCC else { return false }
            next = i + 1
        } else if byte < 0xCC {
            next = i + 2
        } else {
            return false
        }
        return next >= bytes.count || bytes[next] < 0xCC
    }
}
