import Testing
import PropertyBased
@testable import StrataStorage

@Suite struct LZ4Tests {
    @Test func roundTripsRandomBytes() async {
        await propertyCheck(input: Gen.uint8().array(of: 0...5000)) { bytes in
            let packed = LZ4.compress(bytes)
            #expect(packed != nil)
            #expect(LZ4.decompress(packed!, originalSize: bytes.count) == bytes)
        }
    }

    @Test func compressesRepetitiveData() {
        let bytes = [UInt8](repeating: 7, count: 10_000)
        let packed = LZ4.compress(bytes)!
        #expect(packed.count < 200)
    }

    @Test func rejectsWrongDeclaredSize() {
        let bytes = [UInt8](repeating: 7, count: 10_000)
        let packed = LZ4.compress(bytes)!
        #expect(LZ4.decompress(packed, originalSize: 9_999) == nil)
        #expect(LZ4.decompress(packed, originalSize: 10_001) == nil)
        #expect(LZ4.decompress(packed, originalSize: -1) == nil)
        #expect(LZ4.decompress(packed, originalSize: Int.max) == nil)
    }

    @Test func garbageNeverCrashes() async {
        await propertyCheck(input: Gen.uint8().array(of: 1...300), Gen.int(in: 1...4096)) { junk, size in
            _ = LZ4.decompress(junk, originalSize: size)
        }
    }
}
