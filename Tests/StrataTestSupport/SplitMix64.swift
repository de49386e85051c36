#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
/// A small, fast, seedable random number generator (SplitMix64), so that every randomized
/// test prints a seed and replays exactly.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Reads an integer test knob from the environment, such as `STRATA_CRASH_POINTS`.
public func testKnob(_ name: String, default value: Int) -> Int {
    guard let raw = getenv(name), let parsed = Int(String(cString: raw)) else { return value }
    return parsed
}
