/// Where a fetch found a fault's row: firing the fault reads it from there, with no lookup,
/// when the store has published nothing since that fetch (its version is then the newest).
/// Not copyable, as its row is not (see ``ObjectRow``).
struct FaultHint: ~Copyable {
    /// The row, in place in the fetched version's chunk.
    var row: ObjectRow
    /// The row's version (the LSN of its last change).
    var rowVersion: UInt64
    /// The LSN of the version the fetch read.
    var fetchedLSN: UInt64
}

/// Where a fetch found each of its results, so that the faults it hands out carry a
/// ``FaultHint``.
///
/// Only a fetch that checks the store's ``SnapshotDamage`` after its scan may make one: its
/// scan decoded every chunk a place points at, so a hint never holds placeholder columns
/// (firing a fault from a hint checks nothing more).
struct FetchPlaces {
    /// A row's chunk and row index in the fetched version.
    struct Place {
        var chunk: UInt32
        var row: UInt32
        /// For a result the fetch did not find in the store (an object of the context's
        /// unsaved changes).
        static let none = Place(chunk: .max, row: .max)
    }

    /// The LSN of the fetched version.
    let lsn: UInt64
    /// The entity's chunks in that version.
    let chunks: [TableChunk]
    /// One per result, in result order.
    let places: [Place]

    /// The hint for the result at `position`, or `nil` when it has none.
    func hint(at position: Int) -> FaultHint? {
        let place = places[position]
        guard place.chunk != Place.none.chunk else { return nil }
        let chunk = chunks[Int(place.chunk)]
        let row = Int(place.row)
        let version = chunk.version(at: row)
        // Moved into the hint: copied, the chunk was retained twice and released once.
        return FaultHint(row: .row(row, of: consume chunk), rowVersion: version, fetchedLSN: lsn)
    }
}

extension ObjectContext {
    /// The number an object keeps for a hint from a fetch of the version at `lsn` (instead
    /// of the LSN itself): numbers grow by one each time hints come from another version
    /// than the last ones, so that a hint of an older number is never good again. `nil`
    /// (no hint given) once the numbers run out.
    func hintEpochNumber(for lsn: UInt64) -> UInt32? {
        if hintEpoch.number == 0 || hintEpoch.lsn != lsn {
            guard hintEpoch.number < .max else { return nil }
            hintEpoch = (hintEpoch.number + 1, lsn)
        }
        return hintEpoch.number
    }

    /// Whether a hint numbered `number` is still good: it is from the newest hinted version,
    /// and the store has published nothing since.
    func isCurrentHintEpoch(_ number: UInt32) -> Bool {
        number != 0 && number == hintEpoch.number && hintEpoch.lsn == store.lastLSN
    }

    /// The LSN of the version hints numbered `number` came from, when it is the newest
    /// hinted one; 0 (no version) for an older one, which is no longer good anyway.
    func hintLSN(ofEpoch number: UInt32) -> UInt64 {
        number == hintEpoch.number ? hintEpoch.lsn : 0
    }
}
