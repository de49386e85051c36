import Foundation

/// What a workload's figure counts, and how to print it.
///
/// Values are always stored in base units (seconds, bytes, events per second), so JSON
/// consumers need no conversion table.
enum MetricUnit: String, Sendable, Codable {
    /// Elapsed time; printed in µs, ms or s.
    case seconds
    /// A size; printed in MB (10⁶ bytes).
    case bytes
    /// A rate; printed as events per second.
    case perSecond
    /// A throughput; printed in MB/s or GB/s (10⁶ and 10⁹ bytes).
    case bytesPerSecond
    /// A number of rows; printed as a count.
    case rows
    /// One figure divided by another measured in the same run; printed as "0.95×".
    case ratio
    /// A part of a whole, from 0 to 1; printed as a percentage ("98.5%"). Higher is better.
    case share

    /// Whether a smaller figure is better (true for time and size, false for rates).
    var lowerIsBetter: Bool {
        self != .perSecond && self != .bytesPerSecond && self != .share
    }

    /// `value` in a short human form, e.g. "12.3 ms", "45.6 MB", "3,210/s"; `compact` drops
    /// a fraction of zero ("100 ms" rather than "100.0 ms"), for round targets.
    func format(_ value: Double, compact: Bool = false) -> String {
        let text = format(value)
        guard compact else { return text }
        return text.replacingOccurrences(of: ".00 ", with: " ").replacingOccurrences(of: ".0 ", with: " ")
    }

    private func format(_ value: Double) -> String {
        switch self {
        case .seconds:
            // Two digits below 10 µs: a point lookup's p50 is a few µs on both sides, and
            // a ratio of 0.5× cannot be read from whole microseconds.
            if value < 1e-5 { return fixed(value * 1e6, digits: 2) + " µs" }
            if value < 1e-3 { return fixed(value * 1e6, digits: 0) + " µs" }
            if value < 1 { return fixed(value * 1e3, digits: value < 0.1 ? 2 : 1) + " ms" }
            return fixed(value, digits: 2) + " s"
        case .bytes:
            return fixed(value / 1e6, digits: 1) + " MB"
        case .perSecond:
            return grouped(Int(value.rounded())) + "/s"
        case .bytesPerSecond:
            if value >= 1e9 { return fixed(value / 1e9, digits: 2) + " GB/s" }
            return fixed(value / 1e6, digits: 0) + " MB/s"
        case .rows:
            return grouped(Int(value.rounded())) + " rows"
        case .ratio:
            return fixed(value, digits: 2) + "×"
        case .share:
            return fixed(value * 100, digits: 1) + "%"
        }
    }
}

/// `value` with exactly `digits` fractional digits, without Foundation's locale machinery.
func fixed(_ value: Double, digits: Int) -> String {
    guard value.isFinite else { return String(value) }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int64((abs(value) * scale).rounded())
    let whole = scaled / Int64(scale)
    let fraction = scaled % Int64(scale)
    var text = (value < 0 && scaled != 0 ? "-" : "") + grouped(Int(whole))
    if digits > 0 {
        let digitsText = String(fraction)
        text += "." + String(repeating: "0", count: digits - digitsText.count) + digitsText
    }
    return text
}

/// `value` with thousands separators, e.g. 1,000,000.
func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (offset, character) in digits.enumerated() {
        if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
        result.append(character)
    }
    return value < 0 ? "-" + result : result
}
