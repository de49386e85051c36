import ArgumentParser
import Strata

/// `strata update STORE ENTITY --set key=value… [--where …]`.
struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Set attributes of every matching row with one batch update; prints how many rows changed.",
        discussion: """
            Values are parsed by the attribute's type (done=true, age=42, name=Ada; an empty \
            value or nil clears an optional attribute). Validation rules are skipped, types are not.

            Example:
              strata update todo.strata TodoItem --set done=true --where 'title CONTAINS "milk"'
            """)

    @OptionGroup var target: EntityArguments
    @OptionGroup var key: KeyFileOption
    @OptionGroup var filter: FilterOptions

    @Option(name: .customLong("set"), help: ArgumentHelp("An assignment key=value (repeatable).", valueName: "key=value"))
    var assignments: [String]

    func validate() throws {
        if assignments.isEmpty { throw ValidationError("update needs at least one --set key=value.") }
    }

    func run() throws {
        try reportingFailures {
            let store = try WritableStore.open(target.store, key: key)
            defer { try? store.close() }
            let properties = try store.storedProperties(of: target.entity)
            var values: [String: BatchValue] = [:]
            for assignment in assignments {
                guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                    throw InspectorFailure(.usage, "--set '\(assignment)' is not key=value.")
                }
                let property = try RowText.property(named: String(assignment[..<equals]), in: properties)
                let text = String(assignment[assignment.index(after: equals)...])
                do throws(StrataError) {
                    let value = text.isEmpty || text == "nil" ? AttributeValue.null : try RowText.value(parsing: text, for: property)
                    values[property.name] = .constant(value)
                } catch {
                    throw StrataError(error.code, "--set \(property.name): \(error.message).", entity: target.entity, key: property.name)
                }
            }
            var request = BatchUpdateRequest(entityName: target.entity, predicate: try filter.predicate(),
                                              propertiesToUpdate: values)
            request.resultType = .count
            let result = try store.execute(request)
            print("Updated \(InfoCommand.plural(result.count ?? 0, "\(target.entity) row")).")
        }
    }
}
