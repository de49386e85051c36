extension ManagedObject {
    /// Tells the object's `@Model` face, if it has one, that its values may have changed
    /// underneath it (a refresh, a merge of another context's save, a delete by another
    /// context), so that its observers hear of it as of a setter.
    func typedModelDidChange() {
        (typedModel as? any PersistentModel)?._$persistedPropertiesDidChange()
    }
}
