import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A single-string index sorts its entries by their bytes where the bytes decide and through
/// ``StringOrder`` where they do not: it must give exactly the order of comparing the
/// entries (``IndexEntry/precedes(_:_:)``), which fetches and index walks rely on.
@Suite struct IndexStringSortTests {
    /// Strings whose bytes decide (ASCII with shared prefixes, Latin-1) and strings whose
    /// bytes do not (combining marks, canonically equivalent spellings, Greek and Hangul).
    static let pieces = ["", "a", "b", "ab", "Book the repo", "Book the ", "é", "e\u{301}", "\u{3B1}\u{301}", "\u{3B1}",
                         "\u{AC00}\u{11A8}", "\u{AC01}", "z", "\u{0}", "Z", "ü", "u\u{308}", "ﬁ", "x\u{301}"]

    /// Entries with keys ascending (as a table's rows come, with gaps) and shuffled (the
    /// general case): many repeated strings, some distinct, some equal in different bytes.
    @Test(arguments: [0, 1, 2, 300, 5_000]) func ordersAsComparingTheEntries(count: Int) throws {
        var random = SplitMix64(seed: UInt64(count) + 5)
        var entries: [IndexEntry] = []
        for key in 0..<count {
            let parts = (0..<Int(random.next() % 4)).map { _ in Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }
            entries.append(IndexEntry(first: .string(parts.joined()), rest: [], primaryKey: Int64(key * 3 + 1)))
        }
        var shuffled = entries
        for i in shuffled.indices.reversed() where i > 0 { shuffled.swapAt(i, Int(random.next() % UInt64(i + 1))) }
        for input in [entries, shuffled] {
            let sorted = try #require(TableIndex.sortedByString(input))
            let expected = input.sorted(by: IndexEntry.precedes)
            #expect(sorted.map(\.primaryKey) == expected.map(\.primaryKey))
        }
    }

    @Test func otherValuesTakeTheGeneralPath() {
        let entries = [IndexEntry(first: .string("b"), rest: [], primaryKey: 1), IndexEntry(first: .null, rest: [], primaryKey: 2)]
        #expect(TableIndex.sortedByString(entries) == nil)
        #expect(TableIndex.sortedByString([IndexEntry(first: .int(3), rest: [], primaryKey: 1),
                                           IndexEntry(first: .int(2), rest: [], primaryKey: 2)]) == nil)
    }
}
