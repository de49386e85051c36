import Testing
import StrataStorage
import StrataTestSupport
@testable import StrataReplication

/// Issue 22, fencing: the epoch a promotion records in the store directory survives any power
/// loss once recorded (without it, a promoted store would ship as epoch 0 and be refused, or an
/// old epoch would let a fenced store in again), and is never read torn.
@Suite struct EpochFileTests {
    @Test func aRecordedEpochSurvivesEveryPowerLoss() throws {
        let fs = SimulatedFileSystem()
        try fs.createDirectory("/store")
        try fs.syncDirectory("/")
        #expect(try EpochFile.read("/store", fileSystem: fs) == 0)
        try EpochFile.write(1, in: "/store", fileSystem: fs)
        try EpochFile.write(2, in: "/store", fileSystem: fs)
        for seed in UInt64(0)..<64 {
            #expect(try EpochFile.read("/store", fileSystem: fs.powerLossImage(seed: seed)) == 2, "power-loss seed \(seed)")
        }
    }

    @Test func aPowerLossDuringARecordLeavesTheOldEpochOrTheNew() throws {
        let base = SimulatedFileSystem()
        try base.createDirectory("/store")
        try base.syncDirectory("/")
        try EpochFile.write(4, in: "/store", fileSystem: base)
        // Crash at every call of the next write, then lose power in several ways.
        for call in 1...12 {
            let fs = base.processCrashImage()
            fs.crash(atCall: call)
            _ = try? EpochFile.write(5, in: "/store", fileSystem: fs)
            for seed in UInt64(0)..<16 {
                let epoch = try EpochFile.read("/store", fileSystem: fs.powerLossImage(seed: seed))
                #expect(epoch == 4 || epoch == 5, "crash at call \(call), power-loss seed \(seed): epoch \(epoch)")
            }
        }
    }

    @Test func somethingElseInTheFileIsATypedError() throws {
        let fs = SimulatedFileSystem()
        try fs.createDirectory("/store")
        let handle = try fs.open("/store/\(EpochFile.name)", mode: .createNew)
        try handle.writeAll(Array("twelve\n".utf8), at: 0)
        try handle.close()
        #expect(throws: ReplicationError.self) { try EpochFile.read("/store", fileSystem: fs) }
    }
}
