/// Every workload, in issue 8's order, then the storage engine's micro-benchmarks (issue 2).
/// Adding a workload or benchmark means adding it here.
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
        MemoryProbes.afterFullFetch,
        MemoryProbes.asyncSortedPeak,
        TypedModels.insert,
        TypedModels.sortedFetch,
        TypedModels.predicateCount,
        MigrateAddColumn.workload,
        ObserveSave.p50,
        ObserveSave.p99,
        IndexedWorkloads.sortedFetch, IndexedWorkloads.ageIDs,
        UniqueWorkloads.emailLookup, UniqueWorkloads.upsert,
        IndexedInsert.workload, ListItems.workload,
    ]

    /// The storage engine's micro-benchmarks, run after the workloads; group "storage".
    static let storage: [StorageBenchmark] = [
        AppendThroughput.benchmark,
        CommitLatency.benchmark,
        GroupCommit.benchmark,
        SnapshotLoad.oneThread,
        SnapshotLoad.twoThreads,
        AsyncFetchResponsiveness.firstProgress,
        AsyncFetchResponsiveness.progressGap,
        AsyncFetchResponsiveness.progressCoverage,
        AsyncFetchResponsiveness.cancellation,
        AsyncFetchResponsiveness.overSynchronous,
        CheckAll.ids,
        CheckAll.merge,
        MigrateAddColumn.overPlainOpen,
        MigrateWiden.reopenOverPlainOpen,
        IndexedWorkloads.openOverPlainOpen,
        IndexedWorkloads.firstFetchAfterOpen,
    ]

    /// The workload named `name`, if any.
    static func workload(named name: String) -> Workload? {
        all.first { $0.name == name }
    }

    /// The workloads and storage benchmarks whose name or group is in `names`, in registry
    /// order; all of them when `names` is empty.
    ///
    /// - Throws: ``UnknownWorkload`` naming the first name that matches nothing.
    static func select(_ names: [String]) throws(UnknownWorkload)
        -> (workloads: [Workload], storage: [StorageBenchmark]) {
        guard !names.isEmpty else { return (all, storage) }
        func known(_ name: String) -> Bool {
            all.contains { $0.name == name || $0.group == name }
                || name == StorageBenchmark.group || storage.contains { $0.name == name }
        }
        for name in names where !known(name) {
            throw UnknownWorkload(name: name)
        }
        return (all.filter { names.contains($0.name) || names.contains($0.group) },
                storage.filter { names.contains($0.name) || names.contains(StorageBenchmark.group) })
    }
}

/// `--only` named a workload that does not exist.
struct UnknownWorkload: Error, CustomStringConvertible {
    let name: String

    var description: String {
        let known = (Registry.all.map(\.name) + Registry.storage.map(\.name)).joined(separator: ", ")
        return "no workload named '\(name)'; known workloads: \(known) (groups: predicate, durable-save, memory, typed, observe, storage)"
    }
}
