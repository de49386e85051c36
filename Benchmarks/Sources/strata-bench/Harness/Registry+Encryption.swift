extension Registry {
    /// The encryption target of each workload in ``all``, all of which open a store; a
    /// workload added there must be classified here (``encryptionTarget(of:)`` stops the run
    /// otherwise).
    static let encryptionTargets: [String: EncryptionTarget] = [
        "insert": .write, "batch-insert": .write, "batch-update": .write,
        "predicate-count": .read, "predicate-ids": .read, "predicate-ids-async": .read,
        "sorted-fetch": .read, "batch-delete": .write, "open": .read,
        "durable-save-p50": .write, "durable-save-8-writers": .write,
        "disk-footprint": .size, "resident-memory": .size,
        "memory-full-fetch": .size, "memory-async-sorted-peak": .size,
        "typed-insert": .write, "typed-sorted-fetch": .read, "typed-predicate-count": .read,
        "migrate-add-column": .read,
        "observe-save-p50": .write, "observe-save-p99": .write,
        "indexed-sorted-fetch": .read, "indexed-age-ids": .read,
        "unique-email-lookup": .read, "upsert": .write,
        "indexed-insert": .write, "list-items": .read,
    ]

    /// The encryption target of `workload`.
    static func encryptionTarget(of workload: Workload) -> EncryptionTarget {
        guard let target = encryptionTargets[workload.name] else {
            preconditionFailure("workload \(workload.name) has no encryption target: add it to Registry.encryptionTargets")
        }
        return target
    }
}
