import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite struct ModelDiagnosticTests {
    /// Each unsupported declaration, and words its diagnostic must contain: the property's
    /// name and what to write instead.
    @Test(arguments: [
        ("var tags: [String] = []", ["'tags'", "array of values", "Codable struct"]),
        ("var pets: [Pet]? = nil", ["'pets'", "never nil", "[Pet] = []"]),
        ("var lookup: [String: Int] = [:]", ["'lookup'", "dictionary"]),
        ("var pair: (Int, Int) = (0, 0)", ["'pair'", "tuple"]),
        ("var action: () -> Void = {}", ["'action'", "closure", "@Transient"]),
        ("var shape: any Shape", ["'shape'", "existential"]),
        ("var byte: UInt8", ["'byte'", "use Int16"]),
        ("var unsigned: UInt", ["'unsigned'", "use Int64"]),
        ("var letter: Character", ["'letter'", "use String"]),
        ("var names: Set<String> = []", ["'names'", "Set"]),
        ("var forced: String!", ["'forced'", "implicitly unwrapped", "T?"]),
        ("var when = Date()", ["'when'", "type annotation"]),
        ("let fixed: String", ["'fixed'", "must be 'var'"]),
        ("var watched: Int = 0 { didSet { } }", ["'watched'", "willSet/didSet", "Observable"]),
        ("lazy var cache: Int = 0", ["'cache'", "lazy", "@Transient"]),
        ("var a: Int, b: Int", ["one persisted property per 'var'"]),
        ("@Transient var scratch: Int", ["'scratch'", "default value"]),
        ("@Attribute(.length(1...2)) var pets: [Pet] = []", ["'pets'", "@Relationship"]),
        ("deinit { }", ["'M'", "cannot declare deinit", "@Model generates one"]),
    ])
    func unsupportedPropertiesAreErrorsNamingThem(declaration: String, words: [String]) {
        let (_, diagnostics) = expand("@Model final class M {\n    \(declaration)\n}")
        #expect(diagnostics.count == 1, "\(diagnostics.map(\.message))")
        for word in words {
            #expect(diagnostics.first?.message.contains(word) == true, "\(diagnostics.first?.message ?? "no diagnostic") lacks \(word)")
        }
    }

    @Test(arguments: ["struct", "enum", "actor"])
    func modelIsForClassesOnly(kind: String) {
        let (_, diagnostics) = expand("@Model \(kind) M {\n}")
        #expect(diagnostics.map(\.message) == ["@Model applies to a final class, not to a \(kind); persistent models are reference types"])
    }

    @Test func aClassThatIsNotFinalGetsAFixIt() {
        assertExpansion("""
        @Model class M {
        }
        """, expandedSource: """
        class M {

            @exclusivity(unchecked) public var _$backing = Strata.ModelBacking()

            @exclusivity(unchecked) public var _$observation: Strata.ModelRegistrar? = nil

            private var _$observationRegistrar: Strata.ModelRegistrar {
                Strata.ModelRegistrar.registrar(&_$observation, &_$backing)
            }

            public init(_$backing backing: Strata.ModelBacking) {

                self._$backing = backing
            }

            public static let entityName = "M"

            public static let _$properties: [Strata.ModelProperty] = [

            ]

            public static let _$layout = Strata.ModelLayout(_$properties)

            public static func _$propertyName(for keyPath: AnyKeyPath) -> String? {

                return nil
            }

            deinit {
                _$backing.modelDidDeinit()
            }

            public func _$persistedPropertiesDidChange() {

            }
        }

        extension M: Strata.PersistentModel, Observation.Observable {
        }
        """, diagnostics: [
            DiagnosticSpec(message: "@Model class 'M' must be final (Strata does not persist subclasses); add 'final'", line: 1, column: 8,
                           fixIts: [FixItSpec(message: "Add 'final'")]),
        ], applyFixIts: ["Add 'final'"], fixedSource: """
        @Model final class M {
        }
        """)
    }

    @Test func aLetPropertyGetsAFixIt() {
        let (_, diagnostics) = expand("@Model final class M {\n    let fixed: String\n}")
        #expect(diagnostics.first?.fixIts.map(\.message.message) == ["Replace 'let' with 'var'"])
    }
}
