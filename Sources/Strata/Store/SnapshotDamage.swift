import Synchronization
internal import StrataStorage

/// The first chunk of a store's snapshot that failed to decode when it was first read, kept
/// for every later operation on the store to throw.
///
/// A chunk reaches its first decode damaged when nothing could have replaced it at open (no
/// older snapshot, no log from the first transaction), so that the open left its checksum to
/// that decode (`StorageOptions.verifiesSnapshotAtOpen`); otherwise open verified every
/// chunk's checksum, and a chunk is found damaged only if it was rewritten together with its
/// checksum: an encrypted chunk whose GCM tag does not authenticate (tags are checked at a
/// chunk's first read, `docs/FORMAT.md` §14.3), or a chunk its writer got wrong; or if the
/// file changed after the open (a chunk is read from the file again at its first decode, and
/// its checksum verified again), or that read failed. The
/// chunk then records the error here and hands its readers placeholder columns of the right
/// shape, so that no loop indexes out of range; what they compute from them is never returned
/// nor written, because:
///
/// - every public operation that reads the store's rows ends with ``check()`` (through
///   ``PersistentStore/checkingDamage(_:)``), and throws this error instead of its result;
/// - every write checks it under the writer lock after building what it would write and
///   before the log or a snapshot file gets a byte of it (commits, batch requests,
///   checkpoints, key rotations, the migration an open writes);
/// - an object's values are taken from the store only after a check: through a checked read
///   (`ObjectContext.readRow`), or from a fault hint, which only checked fetches and a prefetch
///   that stops at a failed chunk make.
///
/// Damage is never cleared: once a chunk failed, every later read or write of the store
/// throws the same error (indexes and versions built meanwhile may hold placeholders).
final class SnapshotDamage: Sendable {
    private let found = Atomic<Bool>(false)
    private let first = Locked<StrataError?>(nil)

    init() {}

    /// Records the failure of chunk `index` of the snapshot `snapshot` (the first recorded
    /// failure is the one every operation reports).
    func record(_ cause: any Error, snapshot: String, chunk index: Int) {
        first.withLock { error in
            guard error == nil else { return }
            error = StrataError(.corrupted, "\(Self.describe(cause)) Nothing read from chunk #\(index) of \(snapshot) was returned, and nothing has been written to the store since; every operation on this store now throws this error. Close it, check it with `strata verify` (which names every damaged chunk), and restore it from a backup.", cause: cause)
        }
        found.store(true, ordering: .releasing)
    }

    /// Throws the recorded damage, if any (one atomic load when there is none).
    @inline(__always)
    func check() throws(StrataError) {
        guard found.load(ordering: .acquiring) else { return }
        throw error!
    }

    /// Whether a failure is recorded (one atomic load).
    var isDamaged: Bool { found.load(ordering: .acquiring) }

    /// The recorded damage, or `nil`.
    var error: StrataError? {
        guard found.load(ordering: .acquiring) else { return nil }
        return first.withLock { $0 }
    }

    private static func describe(_ cause: any Error) -> String {
        (cause as? StorageError)?.message ?? "\(cause)"
    }
}

extension PersistentStore {
    /// Runs `body`, a read of this store's rows, then throws the damage a chunk found at its
    /// first decode (``SnapshotDamage``) instead of `body`'s result or error, if any chunk has.
    @inline(__always)
    func checkingDamage<T>(_ body: () throws(StrataError) -> T) throws(StrataError) -> T {
        let result: T
        do {
            result = try body()
        } catch {
            try snapshotDamage.check()
            throw error
        }
        try snapshotDamage.check()
        return result
    }

    /// ``checkingDamage(_:)`` for a body that throws any error (writes: what a body built
    /// from placeholder columns may throw, a conflict or a missing row, must not hide the
    /// damage that caused it).
    func checkingDamageOfAnyError<T>(_ body: () throws -> T) throws -> T {
        let result: T
        do {
            result = try body()
        } catch {
            try snapshotDamage.check()
            throw error
        }
        try snapshotDamage.check()
        return result
    }
}
