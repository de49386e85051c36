import Crypto
import Foundation

extension Runner {
    /// Runs the Strata side of `workload` on plain and on encrypted stores, alternately (plain
    /// 1, encrypted 1, plain 2, …, so that a machine whose load drifts weighs on both alike),
    /// `runs` times each (the `--runs` option where the workload's single run is only for
    /// SQLite's sake, ``Workload/oneRunForSQLite``); stops at the first failed run. After each
    /// encrypted run it checks that the stores the run left are encrypted.
    func runEncryption(_ workload: Workload) async -> EncryptionResult {
        var result = EncryptionResult(workload: workload, target: Registry.encryptionTarget(of: workload))
        let runs = workload.oneRunForSQLite ? defaultRuns : (workload.runs ?? defaultRuns)
        for index in 0..<runs {
            for encrypted in [false, true] {
                let side = encrypted ? "encrypted" : "plain"
                let name = "\(workload.name)-\(side)-\(index + 1)"
                do {
                    let (value, checked) = try await once(workload.strata, name: name, encrypted: encrypted)
                    if encrypted {
                        result.encryptedRuns.append(value)
                        result.storesChecked += checked
                    } else {
                        result.plainRuns.append(value)
                    }
                    log("\(name): \(workload.unit.format(value))")
                } catch {
                    result.notes.append("\(side) failed: \(error)")
                    log("\(name): FAILED: \(error)")
                    result.status = .failed
                    return result
                }
            }
        }
        result.status = .measured
        if result.storesChecked == 0 {
            result.notes.append("\(workload.name): the encrypted runs left no store to check")
        }
        return result
    }

    /// One run of `measure` in a fresh directory, with ``BenchEncryption/key`` bound to the
    /// test key when `encrypted`; returns the figure and how many encrypted stores were checked.
    private func once(_ measure: Measurement, name: String, encrypted: Bool) async throws -> (Double, Int) {
        let directory = try Files.freshDirectory(name, in: runsRoot)
        defer { try? FileManager.default.removeItem(at: directory) }
        Files.settle()
        let context = RunContext(dataset: dataset, directory: directory,
                                 fixtures: fixtures(encrypted: encrypted), limits: limits)
        let value = try await BenchEncryption.$key.withValue(encrypted ? BenchEncryption.testKey : nil) {
            try await measure(context)
        }
        let checked = try encrypted ? BenchEncryption.requireEncryptedStores(under: directory) : 0
        return (value, checked)
    }
}
