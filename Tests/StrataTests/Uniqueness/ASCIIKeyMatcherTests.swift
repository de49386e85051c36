import StrataStorage
import StrataTestSupport
import Testing
@testable import Strata

/// The upsert pass's matcher (``ASCIIKeyMatcher``): a row it pairs with a value equals that
/// value, a row it rules out equals none, and it leaves undecided exactly the rows it cannot
/// judge by bytes (not ASCII, null). Strings of every length from 0 to 40 cross its word
/// boundaries (it hashes eight bytes at a time, the last word overlapping).
@Suite struct ASCIIKeyMatcherTests {
    /// A random ASCII string of `length` bytes from a small alphabet, so that near misses
    /// (one byte different, one byte longer) are common.
    static func ascii(_ random: inout SplitMix64, length: Int) -> String {
        String(decoding: (0..<length).map { _ in UInt8(ascii: "a") + UInt8(random.next() % 3) }, as: UTF8.self)
    }

    @Test func aRowIsPairedWithTheValueItEqualsAndRuledOutOtherwise() throws {
        var random = SplitMix64(seed: 0xA5C11)
        // Every length, several values each; then each value, a near miss of it, and random rows.
        var values: [String] = []
        for length in 0...40 {
            for _ in 0..<3 { values.append(Self.ascii(&random, length: length)) }
        }
        let matcher = try #require(ASCIIKeyMatcher(values.map { .string($0) }, type: .string))
        var rows: [String] = []
        for value in values {
            rows.append(value)
            rows.append(value + "a")
            if !value.isEmpty {
                var bytes = Array(value.utf8)
                bytes[Int(random.next() % UInt64(bytes.count))] ^= 1
                rows.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        for _ in 0..<500 { rows.append(Self.ascii(&random, length: Int(random.next() % 41))) }
        var column = ByteColumn()
        for row in rows { column.append(row.utf8) }
        let matches = matcher.match(ColumnChunk(values: .bytes(column)))
        #expect(matches.count == rows.count)
        for (row, match) in zip(rows, matches) {
            if let position = values.firstIndex(of: row) {
                #expect(match == Int32(position), "'\(row)' equals value #\(position), the first of its spelling")
            } else {
                #expect(match == ASCIIKeyMatcher.ruledOut, "'\(row)' equals no value")
            }
        }
    }

    @Test func rowsItCannotJudgeByBytesAreLeftUndecided() throws {
        let values: [AttributeValue] = [.string("K1@x"), .string("plain"), .string("")]
        let matcher = try #require(ASCIIKeyMatcher(values, type: .string))
        var column = ByteColumn()
        // The Kelvin sign is canonically "K"; a null row holds no bytes.
        for row in ["\u{212A}1@x", "plain", "", "other", "caf\u{E9}"] { column.append(row.utf8) }
        let chunk = ColumnChunk(values: .bytes(column), validity: [true, true, false, true, true])
        #expect(matcher.match(chunk) == [ASCIIKeyMatcher.undecided, 1, ASCIIKeyMatcher.undecided,
                                         ASCIIKeyMatcher.ruledOut, ASCIIKeyMatcher.undecided])
        #expect(ASCIIKeyMatcher([.string("caf\u{E9}")], type: .string) == nil, "a value that is not ASCII")
        #expect(ASCIIKeyMatcher([.int(1)], type: .int64) == nil, "not a string column")
    }
}
