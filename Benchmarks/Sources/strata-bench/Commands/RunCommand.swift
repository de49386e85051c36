import ArgumentParser
import Foundation

/// `strata-bench [run]`: runs the workloads and prints the comparison table.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Runs the workloads (the default subcommand).")

    @Option(help: "Rows per table (to-do items, people).")
    var scale = 1_000_000

    @Option(help: "Runs per workload and side; the report shows medians. Deterministic workloads run once.")
    var runs = 5

    @Option(help: "Comma-separated workload names or groups to run (see `strata-bench list`); default all.")
    var only: String?

    @Option(help: "Also write the results as JSON to this file.")
    var json: String?

    @Option(help: "Seed for the generated rows.")
    var seed: UInt64 = 42

    @Option(help: "Directory under which temporary stores are made (default: the system temporary directory). Must be on the disk you want to measure.")
    var workDir: String?

    @Flag(help: "Skip measuring the machine's limits.")
    var skipLimits = false

    @Flag(help: "Keep the temporary directory afterwards.")
    var keep = false

    func validate() throws {
        guard scale >= 1 else { throw ValidationError("--scale must be at least 1") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
    }

    func run() async throws {
        let (workloads, storageBenchmarks) = try Registry.select(
            only?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? [])
        let parent = workDir.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory
        let workRoot = try Files.freshDirectory(
            "strata-bench-\(ProcessInfo.processInfo.processIdentifier)", in: parent)
        defer { if !keep { try? FileManager.default.removeItem(at: workRoot) } }

        var report = Report(
            command: (["strata-bench"] + CommandLine.arguments.dropFirst()).joined(separator: " "),
            date: Date(), scale: scale, runs: runs, seed: seed,
            cores: ProcessInfo.processInfo.activeProcessorCount,
            sqliteVersion: try SQLiteDatabase.version(), limits: nil, results: [])
        print(report.headline)

        log("generating \(grouped(scale)) to-do items and \(grouped(scale)) people (seed \(seed))…")
        let dataset = Dataset(seed: seed, scale: scale)

        if !skipLimits {
            log("measuring the machine's limits in \(workRoot.path)…")
            let limits = try MachineLimits.measure(
                dataset: dataset, directory: try Files.freshDirectory("limits", in: workRoot),
                repetitions: 5)
            report.limits = limits
            print(limits.summaryLine)
        }

        let runner = try Runner(dataset: dataset, workRoot: workRoot, limits: report.limits,
                                defaultRuns: runs)
        for workload in workloads {
            log("\(workload.name): \(workload.summary)")
            report.results.append(await runner.run(workload))
        }
        for benchmark in storageBenchmarks {
            log("\(benchmark.name): \(benchmark.summary)")
            report.storageResults.append(await runner.run(benchmark))
        }

        if !workloads.isEmpty {
            print("")
            print(report.table)
            let best = report.bestSides
            if !best.isEmpty {
                print("")
                print("SQLite at its best (same durability: WAL, synchronous = FULL):")
                print(best)
            }
        }
        if !storageBenchmarks.isEmpty {
            print("")
            print("Strata alone — the storage engine (issue 2) and the asynchronous fetch (issue 5) — against the machine limits above:")
            print("")
            print(report.storageTable)
        }
        let notes = Set(report.results.flatMap(\.notes) + report.storageResults.flatMap(\.notes))
        for note in notes.sorted() { print("note: \(note)") }
        if let json {
            try report.json().write(to: URL(fileURLWithPath: json))
            log("wrote \(json)")
        }
    }
}
