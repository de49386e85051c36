extension StrataError.Code {
    /// A save found rows changed or deleted in the store since the context read them; the
    /// message names the objects and keys (see ``MergePolicy``).
    public static let conflict = Self(rawValue: "conflict")
    /// A write to a store that is read-only (opened so, or after a write error).
    public static let readOnly = Self(rawValue: "readOnly")
    /// An object that no longer exists in the store.
    public static let objectNotFound = Self(rawValue: "objectNotFound")
    /// A relationship delete rule (`deny`) refused a delete.
    public static let deleteDenied = Self(rawValue: "deleteDenied")
    /// An API used where it cannot work (wrong queue, wrong context, closed store…).
    public static let misuse = Self(rawValue: "misuse")
    /// Stored data that does not verify where it is read: a snapshot chunk that fails its
    /// first decode (an encrypted chunk that does not authenticate, rewritten together with
    /// its checksum). The ``StrataError/cause`` is the `StorageError` naming the file and byte
    /// offset; the store then refuses every further read and write (see
    /// <doc:EncryptingAStore>).
    public static let corrupted = Self(rawValue: "corrupted")
}
