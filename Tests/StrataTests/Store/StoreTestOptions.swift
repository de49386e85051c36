@testable import Strata

extension PersistentStore.Options {
    /// No fsync and no automatic checkpoint: for tests about the versions a store builds in
    /// memory, not about durability.
    static var unsyncedWithoutCheckpoints: Self {
        var options = Self()
        options.storage.durability = .never
        options.automaticCheckpointBytes = nil
        return options
    }
}
