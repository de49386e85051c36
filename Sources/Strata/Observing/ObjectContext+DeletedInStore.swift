extension ObjectContext {
    /// Drops `object`, whose row another transaction deleted (a merge or a refresh found it
    /// gone): it leaves the registry and the unsaved changes, it reads as deleted
    /// (`isDeleted`), and every later access throws `.objectNotFound` saying so, rather than
    /// a generic "no longer registered".
    func forgetDeletedInStore(_ object: ManagedObject) {
        forget(object)
        object.markDeletedInStore(StrataError(.objectNotFound, "\(object) was deleted in the store (by another context's save, a batch delete, or the process that writes the store) and dropped from context '\(name ?? "unnamed")'; it can no longer be used. Fetch the current objects again.", entity: object.objectID.entityName))
    }
}
