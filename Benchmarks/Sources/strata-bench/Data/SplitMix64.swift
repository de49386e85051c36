/// A small, fast, deterministic pseudo-random generator (SplitMix64), so that every run and
/// both engines see exactly the same rows for the same seed.
///
/// Not for cryptography; only for generating benchmark data.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// Creates a generator whose whole sequence is determined by `seed`.
    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound`, by multiply-shift (bias below 2⁻³² for the bounds used here).
    mutating func next(below bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        return Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
    }
}
