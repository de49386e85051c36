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

    @Flag(help: ArgumentHelp(
        "Issue 23: run the Strata side of each selected workload on plain and on encrypted stores, alternately, and report encrypted ÷ plain against the targets (≤ 1.10× read and open, ≤ 1.25× write).",
        discussion: "The SQLite sides and the storage micro-benchmarks are not run: encryption's cost is judged against plain Strata in the same run."))
    var encryption = false

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
        if encryption {
            try await runEncryption(workloads, skipped: storageBenchmarks, runner: runner, report: &report)
            return
        }
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

    /// `--encryption`: each workload's Strata side plain and encrypted, then the table.
    private func runEncryption(_ workloads: [Workload], skipped: [StorageBenchmark], runner: Runner,
                               report: inout Report) async throws {
        report.aesFlags = BenchEncryption.aesFlags()
        print(report.aesFlagsLine)
        for workload in workloads {
            log("\(workload.name), plain and encrypted: \(workload.summary)")
            report.encryptionResults.append(await runner.runEncryption(workload))
        }
        print("")
        print("Encryption at rest (issue 23): the Strata side on encrypted stores ÷ on plain ones, medians of this run")
        print("(for saves per second the ratio is plain ÷ encrypted, so above 1 is always slower):")
        print("")
        print(report.encryptionTable)
        if !skipped.isEmpty {
            print("note: --encryption does not run the storage micro-benchmarks (\(skipped.map(\.name).joined(separator: ", ")))")
        }
        for note in Set(report.encryptionResults.flatMap(\.notes)).sorted() { print("note: \(note)") }
        if let json {
            try report.json().write(to: URL(fileURLWithPath: json))
            log("wrote \(json)")
        }
    }
}
