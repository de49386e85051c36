import ArgumentParser

/// `strata-bench list`: the workloads, their groups and targets.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Lists the workloads that --only accepts.")

    func run() async throws {
        for workload in Registry.all {
            let group = workload.group == workload.name ? "" : " (group \(workload.group))"
            print("\(workload.item). \(workload.name)\(group) — target \(workload.target.describe(unit: workload.unit))")
            print("   \(workload.summary)")
        }
    }
}
