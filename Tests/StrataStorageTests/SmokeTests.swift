import Testing
@testable import StrataStorage

@Test func formatVersionIsOne() { #expect(StorageFormat.majorVersion == 1) }
