/// The empty stand-in `@Model` stores for each persisted property (the value itself lives
/// in the model's ``ModelBacking``): it gives the property's `init` accessor something to
/// initialize, so that `self.name = name` in an initializer works as for a plain property.
public struct ModelNoStorage: Sendable {
    /// Creates the stand-in.
    public init() {}
}
