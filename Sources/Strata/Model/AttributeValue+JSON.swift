import Foundation

extension AttributeValue {
    /// The JSON form of a default value or range bound: numbers, booleans and strings as
    /// such, dates as ISO 8601 strings when they fall on a whole second (else seconds since
    /// 1970 as a number, which reads back exactly), UUIDs as strings, binary as base64.
    var jsonValue: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .date(let date):
            let seconds = date.timeIntervalSince1970
            if seconds.rounded() == seconds, Self.isoWritableSeconds.contains(seconds) {
                return .string(date.formatted(Date.ISO8601FormatStyle()))
            }
            return .double(seconds)
        case .uuid(let uuid): return .string(uuid.uuidString)
        case .binary(let data): return .string(data.base64EncodedString())
        }
    }

    /// Whole seconds written as ISO 8601: years 1583 (the first full Gregorian year) to 9999.
    private static let isoWritableSeconds: ClosedRange<Double> = -12_212_553_600...253_402_300_799

    /// Reads a JSON default or bound as a value of `type`, or returns why it cannot.
    static func fromJSON(_ json: JSONValue, as type: AttributeType) -> Result<AttributeValue, JSONValueProblem> {
        switch (type, json) {
        case (_, .null):
            return .success(.null)
        case (.bool, .bool(let b)):
            return .success(.bool(b))
        case (.int16, .int(let i)), (.int32, .int(let i)), (.int64, .int(let i)):
            return .success(.int(i))
        case (.int16, .double(let d)), (.int32, .double(let d)), (.int64, .double(let d)):
            guard let exact = Int64(exactly: d) else { return .failure(.expected("a whole number")) }
            return .success(.int(exact))
        case (.double, .int(let i)):
            return .success(.double(Double(i)))
        case (.double, .double(let d)):
            return .success(.double(d))
        case (.string, .string(let s)):
            return .success(.string(s))
        case (.date, .int(let i)):
            return .success(.date(Date(timeIntervalSince1970: Double(i))))
        case (.date, .double(let d)):
            return .success(.date(Date(timeIntervalSince1970: d)))
        case (.date, .string(let s)):
            guard let date = parseISO8601(s) else {
                return .failure(.expected("an ISO 8601 date such as \"2024-05-01T12:00:00Z\" or seconds since 1970"))
            }
            return .success(.date(date))
        case (.uuid, .string(let s)):
            guard let uuid = UUID(uuidString: s) else {
                return .failure(.expected("a UUID string such as \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\""))
            }
            return .success(.uuid(uuid))
        case (.binary, .string(let s)):
            guard let data = Data(base64Encoded: s) else { return .failure(.expected("a base64 string")) }
            return .success(.binary(data))
        default:
            return .failure(.expected(expectedJSON(for: type)))
        }
    }

    /// What JSON a value of `type` is written as, for messages.
    private static func expectedJSON(for type: AttributeType) -> String {
        switch type {
        case .bool: return "true or false"
        case .int16, .int32, .int64: return "a whole number"
        case .double: return "a number"
        case .string: return "a string"
        case .date: return "an ISO 8601 date string or seconds since 1970"
        case .uuid: return "a UUID string"
        case .binary: return "a base64 string"
        }
    }

    /// Parses `2024-05-01T12:00:00Z`, with or without fractional seconds or a UTC offset.
    private static func parseISO8601(_ string: String) -> Date? {
        let styles = [Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle(includingFractionalSeconds: true)]
        for style in styles {
            if let date = try? style.parse(string) { return date }
        }
        return nil
    }
}

/// Why a JSON value cannot be read as an attribute value.
enum JSONValueProblem: Error {
    /// The value should have been this (`"a whole number"`).
    case expected(String)
}
