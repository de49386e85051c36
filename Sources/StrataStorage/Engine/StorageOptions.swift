/// How a store directory is opened.
public struct StorageOptions: Sendable {
    /// When a commit is on stable storage. Default ``Durability/always``.
    public var durability: Durability = .always
    /// What to do with damage before the end of the log. Default ``RecoveryMode/strict``.
    public var recoveryMode: RecoveryMode = .strict
    /// Open without the writer lock and never change a file. Default `false`.
    public var readOnly = false
    /// Create the directory (and an empty store) when it does not exist. Default `true`.
    public var createIfMissing = true
    /// A log segment is closed and a new one started past this size. Default 64 MiB.
    public var segmentSize: Int64 = 64 << 20
    /// How many snapshots to keep (with the log they need). Keeping 2 lets recovery fall
    /// back to the older one when the newest is damaged. Default 1.
    public var snapshotsRetained = 1
    /// Whether an open checks every chunk of the snapshot it starts from before it returns,
    /// even when nothing could replace a damaged one. Default `false`.
    ///
    /// Either way, an open checks every chunk's checksum when recovery has somewhere to fall
    /// back to — an older snapshot, or a log that still starts at the first transaction — and
    /// skips a damaged snapshot for it (`docs/FORMAT.md` §10.1, rule 4). When there is no
    /// fallback, finding the damage at open would only fail the open; by default the open then
    /// checks the snapshot's header and footer only, and each chunk's checksum is checked by
    /// its first read, which throws `corrupted` naming the chunk (and, in a
    /// `PersistentStore`, so does every later operation). The open then costs the same for any
    /// size of snapshot. Set this to find such damage at open, at the cost of reading the whole
    /// snapshot.
    public var verifiesSnapshotAtOpen = false
    /// The file system seam; tests substitute a simulated one. Default ``PosixFileSystem``.
    public var fileSystem: any FileSystem = PosixFileSystem()

    /// Encrypts every log frame and snapshot chunk with this cipher (`docs/FORMAT.md`,
    /// "Encryption"); `nil`, the default, writes plain files. `StrataEncryption` sets it
    /// through `PersistentStore.Options.encryptionKey`. A store is either encrypted or not:
    /// opening it with the wrong choice, or the wrong key, fails and changes nothing.
    public var cipher: (any StoreCipher)?

    /// The defaults.
    public init() {}
}
