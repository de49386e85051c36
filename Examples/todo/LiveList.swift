import Foundation
import StrataModels

/// The to-do list as a screen would show it: the items not done yet, oldest first, kept up
/// to date by a fetched-results controller. Nothing refreshes it by hand: each commit —
/// the batch update of "check all", a save in the context — reaches it as one change.
final class LiveList {
    let controller: FetchedResultsController<TodoItem>
    let context: ObjectContext
    /// What the last change did, for the terminal: set on the context's queue.
    private(set) var lastChange: String?

    init(context: ObjectContext) throws {
        self.context = context
        let undone = FetchDescriptor<TodoItem>(predicate: #Predicate { !$0.done }, sortBy: [SortDescriptor(\.createdAt)])
        controller = try FetchedResultsController(descriptor: undone, context: context)
        try context.performAndWait {
            try controller.performFetch()
            controller.didChange = { [unowned self] change in
                self.lastChange = "LSN \(change.lsn): \(Terminal.grouped(change.removedOffsets.count)) removed, "
                    + "\(Terminal.grouped(change.insertedOffsets.count)) inserted, "
                    + "\(Terminal.grouped(change.updatedOffsets.count)) updated"
            }
        }
    }

    /// Prints the list's size, its first items and the last change it received. Called on
    /// any thread: it reads the list on the context's queue, after whatever the queue was
    /// told to do before (the controller's update after a commit among it).
    func show(_ title: String) {
        context.performAndWait {
            Terminal.out("Live list (\(title)): \(Terminal.grouped(controller.count)) items not done"
                         + (lastChange.map { "; last change \($0)" } ?? ""))
            for offset in 0..<min(2, controller.count) { Terminal.out("  \(controller.object(at: offset).summary)") }
        }
    }
}
