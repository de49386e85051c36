import Synchronization

/// A reference set at most once, then read with one atomic load: where a ``TableChunk``
/// keeps its decoded columns, and a ``LazyTableIndex`` the index a key probe reads.
///
/// This is what `AtomicLazyReference<Object>` does, without its cost here: on Linux that
/// type's `load()` runs unspecialized in the Synchronization library and looks up the
/// metadata of `Unmanaged<Object>` on every call, about 400 instructions, and a sorted fetch
/// reads a chunk's columns several times per row (its sort key, its version, each attribute
/// it reads). `Atomic<UInt>`'s operations are inlined into this module.
struct OnceSlot<Object: AnyObject & Sendable>: ~Copyable, Sendable {
    /// The address of the retained object, or 0 before it is stored.
    private let address = Atomic<UInt>(0)

    /// An empty slot.
    init() {}

    /// The object, or `nil` before it is stored. It lives as long as the slot, so a caller
    /// that keeps the slot's owner alive may use it unretained.
    @inline(__always)
    func load() -> Object? {
        loadUnmanaged()?.takeUnretainedValue()
    }

    /// The object without a reference count, or `nil` before it is stored: for a caller
    /// that keeps the slot's owner alive while it uses the object (through
    /// `_withUnsafeGuaranteedRef`), so that a read counts no reference.
    @inline(__always)
    func loadUnmanaged() -> Unmanaged<Object>? {
        let bits = address.load(ordering: .acquiring)
        guard let pointer = UnsafeRawPointer(bitPattern: bits) else { return nil }
        return Unmanaged<Object>.fromOpaque(pointer)
    }

    /// Stores `object` unless one is stored already, and returns the stored one (the first
    /// that was stored, whoever stored it).
    @discardableResult
    func storeIfNil(_ object: Object) -> Object {
        let retained = Unmanaged.passRetained(object)
        let (stored, original) = address.compareExchange(expected: 0, desired: UInt(bitPattern: retained.toOpaque()),
                                                         successOrdering: .acquiringAndReleasing, failureOrdering: .acquiring)
        if stored { return object }
        retained.release()
        return Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: original)!).takeUnretainedValue()
    }

    deinit {
        // The slot's owner is going, so no other thread reads it any more.
        guard let pointer = UnsafeRawPointer(bitPattern: address.load(ordering: .relaxed)) else { return }
        Unmanaged<Object>.fromOpaque(pointer).release()
    }
}
