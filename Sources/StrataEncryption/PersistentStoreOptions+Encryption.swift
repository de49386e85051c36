public import Crypto
public import Strata
internal import StrataStorage

extension PersistentStore.Options {
    /// Encrypts the store at rest with this 256-bit key (AES-256-GCM; `docs/FORMAT.md`,
    /// "Encryption"); `nil`, the default, keeps the store plain.
    ///
    /// The key is never stored: keep it in the platform's keychain or secret store. Every log
    /// frame and snapshot chunk (and the snapshot's index, which holds the schema and column
    /// statistics) is compressed, then sealed; sizes, LSNs, timestamps and file names stay
    /// visible. Opening the store needs the same key: another key fails with
    /// `StorageError.Code.wrongKey`, none with `encryptionKeyRequired`, and a key for a plain
    /// store with `notEncrypted`, all before any file is changed.
    ///
    /// For example:
    /// ```swift
    /// var options = PersistentStore.Options()
    /// options.encryptionKey = SymmetricKey(data: keyBytes) // 32 bytes
    /// let store = try PersistentStore(directory: path, schema: schema, options: options)
    /// ```
    public var encryptionKey: SymmetricKey? {
        get { (storage.cipher as? AESGCMStoreCipher)?.key }
        set { storage.cipher = newValue.map(AESGCMStoreCipher.init(key:)) }
    }
}
