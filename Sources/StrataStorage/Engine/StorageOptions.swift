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
