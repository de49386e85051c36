import Testing

/// `#Index`: what it generates, and what it refuses.
@Suite struct IndexExpansionTests {
    @Test func singleAndCompoundIndexesBecomeKeyPathArrays() {
        assertExpansion(
            """
            #Index<Person>([\\.email], [\\.lastName, \\.firstName])
            """,
            expandedSource: """
            static var _$indexKeyPaths: [[AnyKeyPath]] {
                let indexes: [[PartialKeyPath<Person>]] = [[\\.email], [\\.lastName, \\.firstName]]
                return indexes
            }
            """)
    }

    @Test func withoutTheModelTypeIsAnError() {
        let (_, diagnostics) = expand("#Index([\\.email])")
        #expect(diagnostics.map(\.message) == ["#Index needs the model's type, as in '#Index<Person>([\\.email])'"])
    }

    @Test func withoutIndexesIsAnError() {
        let (_, diagnostics) = expand("#Index<Person>()")
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.message.hasPrefix("#Index lists no index") == true)
    }

    @Test func anArgumentThatIsNotAnArrayOfKeyPathsIsAnError() {
        for source in ["#Index<Person>(\\.email)", "#Index<Person>([])", "#Index<Person>([\"email\"])"] {
            let (_, diagnostics) = expand(source)
            #expect(diagnostics.map(\.message) == ["each #Index argument is one index: a non-empty array of key paths such as '[\\.lastName, \\.firstName]'"], "\(source)")
        }
    }
}
