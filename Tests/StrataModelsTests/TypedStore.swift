import Foundation
import StrataModels
import StrataTestSupport

/// A temporary store of the to-do models (and `Kinds`), for one test.
struct TypedStore {
    let directory: TemporaryDirectory
    let store: PersistentStore

    init(_ models: any PersistentModel.Type...) throws {
        directory = try TemporaryDirectory()
        let list = models.isEmpty ? [TodoList.self, TodoItem.self, Kinds.self] : models
        store = try PersistentStore.open(at: directory.path + "/typed.strata", schema: Schema(models: list))
    }

    /// A new private-queue context.
    func context() -> ObjectContext { ObjectContext(store: store) }
}
