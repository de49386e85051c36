import StrataTestSupport

/// One step of a model-based run: what to do and a random word that picks the details
/// (which object, which value, where to crash). Steps pick objects relative to the state
/// they find, so any subsequence of a run is itself a valid run (that is what shrinking
/// relies on).
struct ModelOperation: Sendable, CustomStringConvertible {
    enum Kind: String, Sendable, CaseIterable {
        case insertParent, insertChild, update, delete, relate, unrelate, save, rollback
        case batchUpdate, batchDelete, batchInsert, asyncFetch, checkpoint, crash, reopen
    }

    var kind: Kind
    var word: UInt64

    var description: String { "\(kind.rawValue)(\(word % 100_000))" }

    /// Relative frequencies: mostly edits and saves, some batch requests, a crash now and then.
    static let weights: [(Kind, Int)] = [
        (.insertParent, 12), (.insertChild, 14), (.update, 12), (.delete, 7), (.relate, 8),
        (.unrelate, 4), (.save, 14), (.rollback, 3), (.batchUpdate, 4), (.batchDelete, 3),
        (.batchInsert, 4), (.asyncFetch, 5), (.checkpoint, 3), (.crash, 4), (.reopen, 1),
    ]

    /// A random run of `count` steps.
    static func sequence(seed: UInt64, count: Int) -> [ModelOperation] {
        var rng = SplitMix64(seed: seed)
        let total = weights.reduce(0) { $0 + $1.1 }
        return (0..<count).map { _ in
            var pick = Int(rng.next() % UInt64(total))
            var kind = Kind.save
            for (candidate, weight) in weights {
                if pick < weight { kind = candidate; break }
                pick -= weight
            }
            return ModelOperation(kind: kind, word: rng.next())
        }
    }

    /// Smaller runs that still fail: drops halves, then quarters, … then single steps
    /// (delta debugging), as long as `fails` says the smaller run still fails.
    static func shrink(_ operations: [ModelOperation], budget: Int = 150,
                       fails: ([ModelOperation]) -> Bool) -> [ModelOperation] {
        var current = operations
        var tries = 0
        var chunk = max(1, current.count / 2)
        while chunk >= 1 && tries < budget {
            var start = 0
            var removedAny = false
            while start < current.count && tries < budget {
                var candidate = current
                candidate.removeSubrange(start..<min(start + chunk, current.count))
                tries += 1
                if !candidate.isEmpty && fails(candidate) {
                    current = candidate
                    removedAny = true
                } else {
                    start += chunk
                }
            }
            if !removedAny { chunk /= 2 }
        }
        return current
    }
}
