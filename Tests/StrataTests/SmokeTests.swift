import Testing
@testable import Strata

@Test func attributeValueConformsToIntegerWidths() {
    #expect(AttributeValue.int(40_000).conforms(to: .int32))
    #expect(!AttributeValue.int(40_000).conforms(to: .int16))
}
