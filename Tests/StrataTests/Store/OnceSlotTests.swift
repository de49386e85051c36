import Testing
import StrataStorage
@testable import Strata

/// ``OnceSlot``, as a chunk keeps its decoded columns in it: set once, first store wins, and it owns
/// what it holds (no leak, no early release).
@Suite struct OnceSlotTests {
    static func columns(_ keys: [Int64]) -> DecodedColumns {
        DecodedColumns([ColumnChunk(values: .int64(keys)), ColumnChunk(values: .int64(keys.map { _ in 1 }))])
    }

    @Test func theFirstColumnsStoredWinAndLaterStoresAreDropped() {
        let slot = OnceSlot<DecodedColumns>()
        #expect(slot.load() == nil)
        let first = Self.columns([1, 2, 3])
        weak var loser: DecodedColumns?
        do {
            let second = Self.columns([7])
            loser = second
            #expect(slot.storeIfNil(first) === first)
            #expect(slot.storeIfNil(second) === first)
        }
        #expect(loser == nil, "the slot kept a reference to columns it did not store")
        #expect(slot.load() === first)
        #expect(slot.load()?.primaryKeys == [1, 2, 3])
    }

    @Test func theSlotKeepsItsColumnsAliveAndReleasesThemWithItself() {
        weak var stored: DecodedColumns?
        do {
            let slot = OnceSlot<DecodedColumns>()
            do {
                let columns = Self.columns([4, 5])
                stored = columns
                slot.storeIfNil(columns)
            }
            #expect(stored != nil, "the slot did not retain its columns")
            #expect(slot.load()?.primaryKeys == [4, 5])
        }
        #expect(stored == nil, "the slot leaked its columns")
    }
}
