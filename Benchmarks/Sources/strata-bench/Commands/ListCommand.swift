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
        print("Storage engine micro-benchmarks (group \(StorageBenchmark.group)):")
        for benchmark in Registry.storage {
            let limit = benchmark.limit.map { ", read against \($0.label)" } ?? ""
            print("   \(benchmark.name) — target \(benchmark.target.describe(unit: benchmark.unit))\(limit)")
            print("      \(benchmark.summary)")
        }
    }
}
