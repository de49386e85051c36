import ArgumentParser
import Strata

/// `strata count STORE ENTITY [--where …] [--at LSN]`: the number alone, for scripts.
struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Print how many rows of an entity match (the number alone).",
        discussion: "Example:\n  strata count todo.strata TodoItem --where 'done == NO'")

    @OptionGroup var target: EntityArguments
    @OptionGroup var key: KeyFileOption
    @OptionGroup var filter: FilterOptions
    @OptionGroup var at: AtOption

    func run() throws {
        try reportingFailures {
            let store = try at.open(target.store, key: key).store
            let context = ObjectContext(store: store)
            let request = try FetchRequest(entityName: target.entity, predicate: filter.predicate())
            let count = try context.performAndWait { try context.count(for: request) }
            print(count)
        }
    }
}
