import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// `RowText.value(parsingUTF8:type:)`, the CSV import's shortcut, gives what the full parse
/// `RowText.value(parsing:for:)` gives whenever it answers, and leaves to it every text it
/// cannot decide (other forms, overflow, text that is not a number).
@Suite struct RowTextUTF8Tests {
    static let types: [AttributeType?] = [nil, .int16, .int32, .int64, .double, .string]

    /// The shortcut's answer for `text`, and the full parse's (or `nil` when it throws).
    static func answers(_ text: String, _ type: AttributeType?) -> (fast: AttributeValue?, full: AttributeValue?) {
        let property = StoredProperty(name: "p", type: type, isOptional: false)
        let fast = Array(text.utf8).withUnsafeBufferPointer { RowText.value(parsingUTF8: $0, type: type) }
        return (fast, try? RowText.value(parsing: text, for: property))
    }

    /// Bit-for-bit equality, so that `-0.0` against `0.0` would count as a difference.
    static func same(_ a: AttributeValue?, _ b: AttributeValue?) -> Bool {
        if case .double(let x)? = a, case .double(let y)? = b { return x.bitPattern == y.bitPattern }
        return a == b
    }

    @Test func agreesWithTheFullParseOnEdgeCases() {
        let texts = ["0", "-0", "+7", "42", "-42", "32767", "32768", "-32768", "-32769", "2147483648",
                     "999999999999999999", "9999999999999999999", "-9223372036854775808", "", "-", "+", "1.", ".5",
                     "-.5e1", "1e5", "1E+05", "1e", "e5", "1e400", "1e-400", "0x1p3", "inf", "nan", " 5", "5 ",
                     "1_000", "١٢", "12a", "00012", "123.456e-7", "1.2.3", "--1", "+-1"]
        for type in Self.types {
            for text in texts {
                let (fast, full) = Self.answers(text, type)
                if let fast { #expect(Self.same(fast, full), "\(text) as \(String(describing: type))") }
            }
        }
        // The common forms are answered without the full parse.
        #expect(Self.answers("32767", .int16).fast == .int(32767))
        #expect(Self.answers("-12", nil).fast == .int(-12))
        #expect(Self.answers("99.999", .double).fast == .double(99.999))
        #expect(Self.answers("ada.lovelace1@example.com", .string).fast == .string("ada.lovelace1@example.com"))
        // Out of range or not a number: left to the full parse, which refuses it.
        #expect(Self.answers("32768", .int16).fast == nil)
        #expect(Self.answers("12a", .int64).fast == nil)
    }

    @Test func agreesWithTheFullParseOnRandomText() {
        var random = SplitMix64(seed: 20_261_125)
        let alphabet = Array("0123456789+-.eE x")
        let count = Int(ProcessInfo.processInfo.environment["STRATA_ROWTEXT_CASES"] ?? "") ?? 20_000
        var answered = 0
        for _ in 0..<count {
            let length = Int.random(in: 0...24, using: &random)
            let text = String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] })
            let type = Self.types[Int.random(in: 0..<Self.types.count, using: &random)]
            let (fast, full) = Self.answers(text, type)
            guard let fast else { continue }
            answered += 1
            #expect(Self.same(fast, full), "\(text) as \(String(describing: type))")
        }
        #expect(answered > count / 10, "the shortcut answered \(answered) of \(count)")
    }
}
