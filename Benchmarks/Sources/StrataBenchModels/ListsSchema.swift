public import StrataModels

/// The lists store of the `list-items` workload (strata-bench and strata-profile):
/// `TodoList.items` ↔ `TodoItem.list`, 1,000 items a list.
public enum ListsFixture {
    /// Items per list.
    public static let itemsPerList = 1_000

    /// The schema: lists with a to-many `items` (cascade), items with a to-one `list` (nullify).
    public static let schema: Schema = try! Schema {
        Entity("TodoList") {
            Attribute("title", .string)
            Relationship("items", to: "TodoItem", inverse: "list", toMany: true, deleteRule: .cascade)
        }
        Entity("TodoItem") {
            Attribute("name", .string)
            Attribute("createdAt", .date)
            Attribute("done", .bool)
            Relationship("list", to: "TodoList", inverse: "items", deleteRule: .nullify)
        }
    }
}
