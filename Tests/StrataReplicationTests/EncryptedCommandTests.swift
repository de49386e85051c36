import Crypto
import Foundation
import Testing
import StrataEncryption
import StrataTestSupport
@testable import Strata
@testable import StrataReplication

/// `strata replicate`, `follow` and `promote` on an encrypted store take `--key-file`, as every
/// other command that opens a store; without it they stop with a message that names it.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .serialized)
struct EncryptedCommandTests {
    typealias Tool = FollowPromoteCommandTests.RunningTool

    @Test func theSidecarFollowAndPromoteWorkOnAnEncryptedStoreWithItsKeyFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let url = try TestServer.requireURL()
        let key = SymmetricKey(size: .bits256)
        let keyFile = dir.appending("store.key")
        let hex = key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
        try Data((hex + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        let primary = try PeopleStore.open(dir.appending("primary.strata"), options: EncryptedReplicationTests.options(key))
        defer { try? primary.close() }
        let storeID = primary.storeID.uuidString.lowercased()
        for round in 0..<3 { try EncryptedReplicationTests.save(primary, round: round) }

        let keyless = try Tool(["replicate", primary.directory, "--to", url])
        let (keylessStatus, keylessErrors) = keyless.stop()
        #expect(keylessStatus == 2, "\(keylessErrors)")
        #expect(keylessErrors.contains("--key-file"), "\(keylessErrors)")

        let sidecar = try Tool(["replicate", primary.directory, "--to", url, "--key-file", keyFile, "--poll-ms", "20", "--report-ms", "20"])
        #expect(sidecar.waitFor("Shipped LSN \(primary.lastLSN) "), "\(sidecar.stdout)")
        let replicaDir = dir.appending("replica.strata")
        let follow = try Tool(["follow", replicaDir, "--from", url, "--store", storeID, "--key-file", keyFile,
                               "--poll-ms", "50", "--report-ms", "20"])
        #expect(follow.waitFor("Following store \(storeID) from "), "\(follow.stdout)")
        try EncryptedReplicationTests.save(primary, round: 3)
        #expect(sidecar.waitFor("Shipped LSN \(primary.lastLSN) "), "\(sidecar.stdout)")
        #expect(follow.waitFor("Applied LSN \(primary.lastLSN) "), "\(follow.stdout)")
        #expect(follow.stop().0 == 0)
        #expect(sidecar.stop().0 == 0)

        let promote = try Tool(["promote", replicaDir, "--from", url, "--store", storeID, "--key-file", keyFile])
        let (status, errors) = promote.stop()
        #expect(status == 0, "\(errors)")
        let promoted = try PeopleStore.open(replicaDir, options: EncryptedReplicationTests.options(key))
        defer { try? promoted.close() }
        #expect(try PeopleStore.contents(promoted) == PeopleStore.contents(primary))
    }
}
