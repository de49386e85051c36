extension ObjectContext {
    /// Drops `object`, whose row another transaction deleted (a merge or a refresh found it
    /// gone): it leaves the registry and the unsaved changes, and every later access throws
    /// `.objectNotFound` saying so, rather than a generic "no longer registered".
    func forgetDeletedInStore(_ object: ManagedObject) {
        forget(object)
        object.unusable = StrataError(.objectNotFound, "\(object) was deleted in the store (by another context's save or a batch delete) and dropped from context '\(name ?? "unnamed")'; it can no longer be used. Fetch the current objects again.", entity: object.objectID.entityName)
    }
}
