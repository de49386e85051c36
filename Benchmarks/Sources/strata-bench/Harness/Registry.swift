/// Every workload, in issue 8's order. Adding a workload means adding it here.
enum Registry {
    static let all: [Workload] = [
        ContextInsert.workload,
        BatchInsert.workload,
        BatchUpdate.workload,
        PredicateFetch.count,
        PredicateFetch.ids,
        PredicateFetch.idsAsync,
        SortedFetch.workload,
        BatchDelete.workload,
        OpenAndCount.workload,
        DurableSave.latency,
        DurableSave.concurrent,
        DiskFootprint.workload,
        ResidentMemory.workload,
    ]

    /// The workload named `name`, if any.
    static func workload(named name: String) -> Workload? {
        all.first { $0.name == name }
    }

    /// The workloads whose name or group is in `names`, in registry order; all of them when
    /// `names` is empty.
    ///
    /// - Throws: ``UnknownWorkload`` naming the first name that matches nothing.
    static func select(_ names: [String]) throws(UnknownWorkload) -> [Workload] {
        guard !names.isEmpty else { return all }
        for name in names where !all.contains(where: { $0.name == name || $0.group == name }) {
            throw UnknownWorkload(name: name)
        }
        return all.filter { names.contains($0.name) || names.contains($0.group) }
    }
}

/// `--only` named a workload that does not exist.
struct UnknownWorkload: Error, CustomStringConvertible {
    let name: String

    var description: String {
        let known = Registry.all.map(\.name).joined(separator: ", ")
        return "no workload named '\(name)'; known workloads: \(known) (groups: predicate, durable-save)"
    }
}
