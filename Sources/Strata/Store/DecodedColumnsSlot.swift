import Synchronization

/// Where a ``TableChunk`` keeps its decoded columns: set at most once, then read with one
/// atomic load.
///
/// This is what `AtomicLazyReference<DecodedColumns>` does, without its cost here: on Linux
/// that type's `load()` runs unspecialized in the Synchronization library and looks up the
/// metadata of `Unmanaged<DecodedColumns>` on every call, about 400 instructions, and a sorted
/// fetch reads a chunk's columns several times per row (its sort key, its version, each
/// attribute it reads). `Atomic<UInt>`'s operations are inlined into this module.
struct DecodedColumnsSlot: ~Copyable, Sendable {
    /// The address of the retained columns, or 0 before they are stored.
    private let address = Atomic<UInt>(0)

    /// An empty slot.
    init() {}

    /// The columns, or `nil` before they are stored.
    @inline(__always)
    func load() -> DecodedColumns? {
        let bits = address.load(ordering: .acquiring)
        guard let pointer = UnsafeRawPointer(bitPattern: bits) else { return nil }
        return Unmanaged<DecodedColumns>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Stores `columns` unless columns are stored already, and returns the stored ones (the
    /// first that were stored, whoever stored them).
    @discardableResult
    func storeIfNil(_ columns: DecodedColumns) -> DecodedColumns {
        let retained = Unmanaged.passRetained(columns)
        let (stored, original) = address.compareExchange(expected: 0, desired: UInt(bitPattern: retained.toOpaque()),
                                                         successOrdering: .acquiringAndReleasing, failureOrdering: .acquiring)
        if stored { return columns }
        retained.release()
        return Unmanaged<DecodedColumns>.fromOpaque(UnsafeRawPointer(bitPattern: original)!).takeUnretainedValue()
    }

    deinit {
        // The slot's owner is going, so no other thread reads it any more.
        guard let pointer = UnsafeRawPointer(bitPattern: address.load(ordering: .relaxed)) else { return }
        Unmanaged<DecodedColumns>.fromOpaque(pointer).release()
    }
}
