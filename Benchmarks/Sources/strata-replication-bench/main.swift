// strata-replication-bench: issue 22's replication figures against PostgreSQL's own limits,
// measured in the same run on the same server (docs/REPLICATION.md, "Measured").
//
//   strata-replication-bench [--url postgres://…] [--frames N] [--lag-seconds S] [--rate R]
//                            [--sync-saves N] [--restore-rows N] [--only NAME,…]
//
// Without --url it starts a throwaway server with ../scripts/postgres-server (stopped at the
// end). Workloads:
//   ship     catch-up shipping of N frames, against `COPY … FROM STDIN (FORMAT binary)` of the
//            same rows through psql (the limit: the server's bulk-load path)
//   lag      a replica's lag (commit on the primary → visible on the replica) under a steady
//            R commits/s for S seconds, p50/p99
//   sync     synchronous-mode save latency against a plain `INSERT` commit on one
//            connection, p50/p99
//   restore  restore of an N-row store (snapshot shipped after a checkpoint), seconds
import Foundation
import Strata
import StrataReplication

struct Arguments {
    var url: String?
    var frames = 20_000
    var lagSeconds = 10.0
    var rate = 1_000.0
    var syncSaves = 2_000
    var restoreRows = 1_000_000
    var only: Set<String> = ["ship", "lag", "sync", "restore"]

    init() {
        var it = CommandLine.arguments.dropFirst().makeIterator()
        while let flag = it.next() {
            guard let value = it.next() else { fail("\(flag) needs a value") }
            switch flag {
            case "--url": url = value
            case "--frames": frames = Int(value) ?? frames
            case "--lag-seconds": lagSeconds = Double(value) ?? lagSeconds
            case "--rate": rate = Double(value) ?? rate
            case "--sync-saves": syncSaves = Int(value) ?? syncSaves
            case "--restore-rows": restoreRows = Int(value) ?? restoreRows
            case "--only": only = Set(value.split(separator: ",").map(String.init))
            default: fail("unknown option \(flag)")
            }
        }
    }
}

/// Prints `line` and flushes it, so that a pipe sees each figure as it is measured.
func report(_ line: String) {
    print(line)
    fflush(nil)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("strata-replication-bench: \(message)\n".utf8))
    exit(2)
}

let arguments = Arguments()
let server = try BenchServer.start(url: arguments.url)
defer { server.stop() }
report("strata-replication-bench · PostgreSQL \(server.version) at \(server.url) · \(ProcessInfo.processInfo.activeProcessorCount) cores")
let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("strata-repl-bench-\(UUID().uuidString)").path
try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: workspace) }

if arguments.only.contains("ship") { try ShipWorkload.run(server: server, frames: arguments.frames, in: workspace) }
if arguments.only.contains("lag") { try LagWorkload.run(server: server, seconds: arguments.lagSeconds, rate: arguments.rate, in: workspace) }
if arguments.only.contains("sync") { try SyncWorkload.run(server: server, saves: arguments.syncSaves, in: workspace) }
if arguments.only.contains("restore") { try RestoreWorkload.run(server: server, rows: arguments.restoreRows, in: workspace) }
