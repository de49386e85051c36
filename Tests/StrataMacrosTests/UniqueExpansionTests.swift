import Testing

/// `#Unique`: what it generates, and what it refuses.
@Suite struct UniqueExpansionTests {
    @Test func singleAndCompoundConstraintsBecomeKeyPathArrays() {
        assertExpansion(
            """
            #Unique<Person>([\\.email], [\\.first, \\.last])
            """,
            expandedSource: """
            static var _$uniqueKeyPaths: [[AnyKeyPath]] {
                let constraints: [[PartialKeyPath<Person>]] = [[\\.email], [\\.first, \\.last]]
                return constraints
            }
            """)
    }

    @Test func withoutTheModelTypeIsAnError() {
        let (_, diagnostics) = expand("#Unique([\\.email])")
        #expect(diagnostics.map(\.message) == ["#Unique needs the model's type, as in '#Unique<Person>([\\.email])'"])
    }

    @Test func withoutConstraintsIsAnError() {
        let (_, diagnostics) = expand("#Unique<Person>()")
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.message.hasPrefix("#Unique lists no constraint; write one array of key paths per constraint") == true)
    }

    @Test func anArgumentThatIsNotAnArrayOfKeyPathsIsAnError() {
        for source in ["#Unique<Person>(\\.email)", "#Unique<Person>([])", "#Unique<Person>([\"email\"])"] {
            let (_, diagnostics) = expand(source)
            #expect(diagnostics.map(\.message) == ["each #Unique argument is one constraint: a non-empty array of key paths such as '[\\.lastName, \\.firstName]'"], "\(source)")
        }
    }
}
