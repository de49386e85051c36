/// The commands whose output is compared with `Fixtures/inspector/expected/<name>.txt`.
struct GoldenCase: Sendable, CustomStringConvertible {
    var name: String
    var arguments: [String]
    var description: String { name }

    static var all: [GoldenCase] {
        let log = Inspector.logStore, checkpointed = Inspector.checkpointedStore
        return [
            GoldenCase(name: "info", arguments: ["info", log]),
            GoldenCase(name: "info-at-3", arguments: ["info", log, "--at", "3"]),
            GoldenCase(name: "info-checkpointed", arguments: ["info", checkpointed]),
            GoldenCase(name: "schema", arguments: ["schema", log]),
            GoldenCase(name: "schema-json", arguments: ["schema", log, "--json"]),
            GoldenCase(name: "query-table", arguments: ["query", log, "Person", "--where", "age >= $min", "--arg", "min=40",
                                                        "--sort", "age:desc", "--keys", "_pk,name,age,active,born"]),
            GoldenCase(name: "query-json", arguments: ["query", log, "Pet", "--format", "json"]),
            GoldenCase(name: "query-csv", arguments: ["query", log, "Person", "--format", "csv", "--sort", "name",
                                                      "--limit", "3", "--offset", "1"]),
            GoldenCase(name: "query-jsonl-at-5", arguments: ["query", checkpointed, "Person", "--format", "jsonl",
                                                             "--at", "5", "--keys", "name,score"]),
            GoldenCase(name: "export-jsonl", arguments: ["export", log, "Person"]),
            GoldenCase(name: "export-csv", arguments: ["export", log, "Person", "--format", "csv"]),
            GoldenCase(name: "count", arguments: ["count", log, "Person", "--where", "active == YES"]),
            GoldenCase(name: "count-at-4", arguments: ["count", log, "Pet", "--at", "4"]),
            GoldenCase(name: "log", arguments: ["log", log]),
            GoldenCase(name: "log-json", arguments: ["log", log, "--json", "--from", "3", "--limit", "2"]),
            GoldenCase(name: "stats", arguments: ["stats", checkpointed]),
            GoldenCase(name: "verify-deep", arguments: ["verify", checkpointed, "--deep"]),
        ]
    }
}
