import ArgumentParser
import Strata

/// `strata delete STORE ENTITY --where …`.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete every matching row with one batch delete; prints how many rows were deleted.",
        discussion: """
            Delete rules apply: references to deleted rows are cleared, cascades delete further \
            (and count), a deny rule refuses the whole delete. --where is required; use \
            --where TRUEPREDICATE to delete every row.

            Example:
              strata delete todo.strata TodoItem --where 'done == YES'
            """)

    @OptionGroup var target: EntityArguments
    @OptionGroup var key: KeyFileOption
    @OptionGroup var filter: FilterOptions

    func validate() throws {
        if filter.predicateText == nil { throw ValidationError("delete needs --where (use --where TRUEPREDICATE to delete every row).") }
    }

    func run() throws {
        try reportingFailures {
            let store = try WritableStore.open(target.store, key: key)
            defer { try? store.close() }
            var request = BatchDeleteRequest(entityName: target.entity, predicate: try filter.predicate())
            request.resultType = .count
            let result = try store.execute(request)
            print("Deleted \(InfoCommand.plural(result.count ?? 0, "row")) (cascades included).")
        }
    }
}
