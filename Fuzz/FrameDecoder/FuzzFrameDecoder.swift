// libFuzzer target: the frame decoder and the segment scanner.
//
// First input byte picks the mode:
//   even: the rest is raw bytes — decoded as one frame at offset 0 and scanned as a whole
//         segment; a frame that decodes must re-encode and decode to the same payload.
//   odd:  the rest is a stored payload wrapped in a frame with a valid checksum and the
//         compressed flag set (the declared raw size from the next two bytes), so the LZ4
//         decoder behind the checksum is reached; it must fail cleanly or give that size.
import Foundation
@testable import StrataStorage

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    FuzzSupport.writeSeedsIfAsked {
        var seeds: [[UInt8]] = []
        for (index, record) in FuzzSupport.sampleRecords().enumerated() {
            if let frame = try? FrameCodec.encode(record.payload, kind: record.kind, lsn: UInt64(index + 1), timestamp: 0, syncedLSN: 0, salt: 7) {
                seeds.append([0] + frame)
            }
            let packed = LZ4.compress(record.payload) ?? []
            seeds.append([1, UInt8(record.payload.count & 0xFF), UInt8(record.payload.count >> 8 & 0xFF)] + packed)
        }
        for (name, bytes) in FuzzSupport.sampleFiles() where name.hasSuffix(".log") { seeds.append([0] + bytes) }
        return seeds
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeRawBufferPointer(start: start, count: count)))
    let mode = input.byte()
    if mode % 2 == 0 {
        let body = input.rest()
        body.withUnsafeBytes { raw in
            _ = FrameCodec.decodeHeader(raw, at: 0, end: raw.count)
            if case .success(let (header, payload)) = FrameCodec.decode(raw, at: 0, end: raw.count, expectedSalt: nil) {
                precondition(payload.count == header.rawLength, "decoded payload size differs from the header's")
                let again = try! FrameCodec.encode(payload, kind: header.kind, lsn: header.lsn, timestamp: header.timestamp,
                                                   syncedLSN: header.syncedLSN, salt: header.salt)
                again.withUnsafeBytes { reencoded in
                    guard case .success(let (_, payload2)) = FrameCodec.decode(reencoded, at: 0, end: reencoded.count, expectedSalt: header.salt) else {
                        preconditionFailure("a re-encoded frame does not decode")
                    }
                    precondition(payload2 == payload, "frame round trip changed the payload")
                }
            }
        }
        _ = SegmentScanner.scan(name: "wal-00000000000000000001.log", bytes: body)
    } else {
        let rawLength = 1 + input.uint16() * (mode == 1 ? 1 : 16)
        let stored = input.rest()
        guard !stored.isEmpty else { return 0 }
        let crc = stored.withUnsafeBytes { CRC32C.update(CRC32C.initial, $0) }
        let prepared = PreparedPayload(stored: stored, isCompressed: true, rawLength: rawLength, runningChecksum: crc)
        var frame: [UInt8] = []
        FrameCodec.seal(prepared, kind: 2, lsn: 1, timestamp: 0, syncedLSN: 0, salt: 1, into: &frame)
        frame.withUnsafeBytes { raw in
            if case .success(let (_, payload)) = FrameCodec.decode(raw, at: 0, end: raw.count, expectedSalt: 1) {
                precondition(payload.count == rawLength, "LZ4 produced \(payload.count) bytes for a declared \(rawLength)")
            }
        }
    }
    return 0
}
