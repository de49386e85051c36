public import Crypto
public import Strata
internal import StrataStorage

extension PersistentStore {
    /// Rewrites the store under `key` as one crash-safe step: a snapshot under the new key,
    /// a new log segment under it, then every file under the old key removed. `nil` decrypts
    /// the store (it is plain afterwards); a key on a plain store encrypts it.
    ///
    /// Commits wait while it runs; reads go on. Open the store with `key` from now on. After
    /// a crash the store opens with exactly one of the two keys and holds every committed
    /// transaction: the old key until the new snapshot's rename is durable, the new key from
    /// then on (the other gives `wrongKey`, `encryptionKeyRequired` or `notEncrypted`, saying
    /// so; `docs/FORMAT.md`, "Key rotation"). Read-only processes following the store must
    /// reopen with the new key. ``PersistentStore/options`` keeps the key it was opened with.
    ///
    /// For example:
    /// ```swift
    /// try store.rotateKey(to: SymmetricKey(size: .bits256))
    /// ```
    ///
    /// - Returns: the LSN the new snapshot captured.
    /// - Throws: `StorageError` `invalidArgument` for a key that is not 256 bits long, for a
    ///   store that keeps persistent history (not encrypted yet), or while a replicator has
    ///   not shipped the log; `readOnly`, `io`, `diskFull` (after an I/O error the store is
    ///   read-only until reopened, under one of the two keys); `StrataError` `.corrupted`
    ///   when a chunk of the store's snapshot does not authenticate as the rotation reads it
    ///   (nothing changed: the store stays under its old key).
    /// - Complexity: O(size of the store).
    @discardableResult
    public func rotateKey(to key: SymmetricKey?) throws -> UInt64 {
        try rotateCipher(to: key.map(AESGCMStoreCipher.init(key:)))
    }
}
