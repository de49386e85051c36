// libFuzzer target: the snapshot reader (header, trailer, footer index, chunks, columns).
//
// First input byte picks the mode:
//   0: the rest is a snapshot file, read as is (every chunk read, checksums verified);
//   1: the same with the header, footer and chunk checksums recomputed first, so the
//      footer and column decoders behind them are reached;
//   2: the rest is a footer index, decoded directly;
//   3: the rest is one chunk's column payload for a table of the sample schema;
//   4: the rest is a payload of column blocks (snapshot major 3) for the same table, with
//      the declared raw length and the wanted columns taken from the input first.
import Foundation
@testable import StrataStorage
import StrataTestSupport

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    FuzzSupport.writeSeedsIfAsked {
        FuzzSupport.sampleFiles().filter { $0.0.hasSuffix(".snap") }.flatMap { [[0] + $0.1, [1] + $0.1] }
    }
    return 0
}

let directory = "/snap"
let name = "snapshot-00000000000000000001.snap"
let tables = [
    TableDescriptor(name: "A", columns: [ColumnDescriptor(name: "$pk", kind: .int64), ColumnDescriptor(name: "$version", kind: .int64),
                                         ColumnDescriptor(name: "b", kind: .bool), ColumnDescriptor(name: "d", kind: .double),
                                         ColumnDescriptor(name: "s", kind: .bytes)]),
]

func readWholeFile(_ bytes: [UInt8]) {
    let fs = SimulatedFileSystem()
    try? fs.createDirectory(directory)
    guard let file = try? fs.open("\(directory)/\(name)", mode: .createNew) else { return }
    try? file.writeAll(bytes, at: 0)
    guard let reader = try? SnapshotReader(fileSystem: fs, directory: directory, name: name) else { return }
    _ = try? reader.verifyChecksums()
    for index in reader.chunks.indices {
        guard let columns = try? reader.readChunk(index) else { continue }
        precondition(columns.allSatisfy { $0.count == reader.chunks[index].rowCount }, "a chunk decoded to the wrong row count")
    }
}

func putUInt32(_ value: UInt32, _ bytes: inout [UInt8], at offset: Int) {
    withUnsafeBytes(of: value.littleEndian) { for (i, b) in $0.enumerated() { bytes[offset + i] = b } }
}

func fixChecksums(_ bytes: inout [UInt8]) {
    guard bytes.count >= SnapshotLayout.headerSize + SnapshotLayout.trailerSize else { return }
    putUInt32(CRC32C.checksum(Array(bytes[0..<36])), &bytes, at: 36)
    let trailer = bytes.count - SnapshotLayout.trailerSize
    var r = ByteReader(Array(bytes[trailer...]))
    guard let offset = try? r.readUInt64(), let length = try? r.readUInt32() else { return }
    let start = Int(truncatingIfNeeded: offset), end = start &+ Int(length)
    guard start >= SnapshotLayout.headerSize, start <= end, end <= trailer else { return }
    let index = Array(bytes[start..<end])
    putUInt32(CRC32C.checksum(index), &bytes, at: trailer + 12)
    guard let footer = try? SnapshotFooter.decode(index, dataStart: Int64(SnapshotLayout.headerSize), dataEnd: Int64(start)) else { return }
    for chunk in footer.chunks {
        let at = Int(chunk.offset)
        guard at >= 0, chunk.length >= SnapshotLayout.chunkHeaderSize, at + chunk.length <= bytes.count else { continue }
        let payloadCRC = Array(bytes[(at + SnapshotLayout.chunkHeaderSize)..<(at + chunk.length)]).withUnsafeBytes { CRC32C.update(CRC32C.initial, $0) }
        let crc = Array(bytes[at..<(at + 24)]).withUnsafeBytes { CRC32C.update(payloadCRC, $0) }
        putUInt32(CRC32C.finalize(crc), &bytes, at: at + 24)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeRawBufferPointer(start: start, count: count)))
    switch input.byte() % 5 {
    case 0:
        readWholeFile(input.rest())
    case 1:
        var bytes = input.rest()
        fixChecksums(&bytes)
        readWholeFile(bytes)
    case 2:
        let bytes = input.rest()
        _ = try? SnapshotFooter.decode(bytes, dataStart: Int64(SnapshotLayout.headerSize), dataEnd: Int64(SnapshotLayout.headerSize) + 1 << 20)
    case 4:
        let rows = input.uint16() % 300
        let rawLength = input.uint16()
        let mask = input.byte()
        let wanted: [Bool]? = mask & 0x80 != 0 ? nil : tables[0].columns.indices.map { mask & (1 << $0) != 0 }
        let payload = input.rest()
        if let columns = try? payload.withUnsafeBytes({ try ColumnBlocks.decode($0, rawLength: rawLength, table: tables[0], rows: rows, only: wanted) }) {
            precondition(columns.count == tables[0].columns.count, "column blocks gave the wrong number of columns")
            for (index, column) in columns.enumerated() {
                precondition((column == nil) == (wanted.map { !$0[index] } ?? false), "column blocks decoded a column not wanted, or skipped a wanted one")
                precondition(column.map { $0.count == rows } ?? true, "column blocks gave the wrong row count")
            }
        }
    default:
        let rows = input.uint16() % 300
        let payload = input.rest()
        if let columns = try? ColumnCodec.decode(payload, table: tables[0], rows: rows) {
            precondition(columns.count == tables[0].columns.count && columns.allSatisfy { $0.count == rows }, "column decode gave the wrong shape")
        }
    }
    return 0
}
