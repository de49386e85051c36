import Foundation
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite struct ModelExpansionTests {
    /// The whole expansion of a small model: the contract `@Model` documents.
    @Test func expandsAModelWithAnAttributeAToOneAndAToMany() {
        assertExpansion("""
        @Model final class Item {
            var name: String
            var list: TodoList?
            @Relationship(deleteRule: .cascade, inverse: \\Tag.item) var tags: [Tag] = []
            init(name: String) { self.name = name }
        }
        """, expandedSource: """
        final class Item {
            var name: String {
                @storageRestrictions(accesses: _$backing, initializes: _$name)
                init(initialValue) {
                    _$backing.setValue(Self._$layout, 0, Self._$kind_name, initialValue)
                    _$name = Strata.ModelNoStorage()
                }
                get {
                    Strata.ModelRegistrar.access(&_$observation, &_$backing, self, keyPath: Self._$keyPath_name)
                    return _$backing.value(Self._$layout, 0, Self._$kind_name)
                }
                set {
                    _$observationRegistrar.withMutation(of: self, keyPath: Self._$keyPath_name) {
                        _$backing.setValue(Self._$layout, 0, Self._$kind_name, newValue)
                    }
                }
            }

            private var _$name: Strata.ModelNoStorage

            private static let _$kind_name = Strata.modelValueKind((String).self)
            var list: TodoList? {
                @storageRestrictions(accesses: _$backing, initializes: _$list)
                init(initialValue) {
                    _$backing.setValue(Self._$layout, 1, Self._$kind_list, initialValue)
                    _$list = Strata.ModelNoStorage()
                }
                get {
                    Strata.ModelRegistrar.access(&_$observation, &_$backing, self, keyPath: Self._$keyPath_list)
                    return _$backing.value(Self._$layout, 1, Self._$kind_list)
                }
                set {
                    _$observationRegistrar.withMutation(of: self, keyPath: Self._$keyPath_list) {
                        _$backing.setValue(Self._$layout, 1, Self._$kind_list, newValue)
                    }
                }
            }

            private var _$list: Strata.ModelNoStorage

            private static let _$kind_list = Strata.modelValueKind((TodoList?).self)
            var tags: [Tag] {
                @storageRestrictions(accesses: _$backing, initializes: _$tags)
                init(initialValue) {
                    _$backing.setValue(Self._$layout, 2, Self._$kind_tags, initialValue)
                    _$tags = Strata.ModelNoStorage()
                }
                get {
                    Strata.ModelRegistrar.access(&_$observation, &_$backing, self, keyPath: Self._$keyPath_tags)
                    return _$backing.value(Self._$layout, 2, Self._$kind_tags)
                }
                set {
                    _$observationRegistrar.withMutation(of: self, keyPath: Self._$keyPath_tags) {
                        _$backing.setValue(Self._$layout, 2, Self._$kind_tags, newValue)
                    }
                }
            }

            private var _$tags: Strata.ModelNoStorage

            private static let _$kind_tags = Strata.modelValueKind(([Tag]).self)
            init(name: String) { self.name = name }

            @exclusivity(unchecked) public var _$backing = Strata.ModelBacking()

            @exclusivity(unchecked) public var _$observation: Strata.ModelRegistrar? = nil

            private var _$observationRegistrar: Strata.ModelRegistrar {
                Strata.ModelRegistrar.registrar(&_$observation, &_$backing)
            }

            public init(_$backing backing: Strata.ModelBacking) {
                self._$name = Strata.ModelNoStorage()
                self._$list = Strata.ModelNoStorage()
                self._$tags = Strata.ModelNoStorage()
                self._$backing = backing
            }

            public static let entityName = "Item"

            public static let _$properties: [Strata.ModelProperty] = [
                Strata.ModelProperty("name", _$kind_name),
                Strata.ModelProperty("list", _$kind_list),
                Strata.ModelProperty("tags", _$kind_tags, deleteRule: .cascade, inverse: \\Tag.item)
            ]

            public static let _$layout = Strata.ModelLayout(_$properties)

            private static let _$keyPath_name: any KeyPath<Item, String> & Sendable = \\Item.name

            private static let _$keyPath_list: any KeyPath<Item, TodoList?> & Sendable = \\Item.list

            private static let _$keyPath_tags: any KeyPath<Item, [Tag]> & Sendable = \\Item.tags

            public static func _$propertyName(for keyPath: AnyKeyPath) -> String? {
                if keyPath == Self._$keyPath_name {
                    return "name"
                }
                if keyPath == Self._$keyPath_list {
                    return "list"
                }
                if keyPath == Self._$keyPath_tags {
                    return "tags"
                }
                return nil
            }

            deinit {
                _$backing.modelDidDeinit()
            }

            public func _$persistedPropertiesDidChange() {
                _$observationRegistrar.withMutation(of: self, keyPath: Self._$keyPath_name) {
                }
                _$observationRegistrar.withMutation(of: self, keyPath: Self._$keyPath_list) {
                }
                _$observationRegistrar.withMutation(of: self, keyPath: Self._$keyPath_tags) {
                }
            }
        }

        extension Item: Strata.PersistentModel, Observation.Observable {
        }
        """)
    }

    /// Each supported kind of property: its declaration, the kind `@Model` asks the
    /// compiler for, and how it is described to the schema.
    @Test(arguments: [
        ("var flag: Bool", "Strata.modelValueKind((Bool).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("var count: Int = 3", "Strata.modelValueKind((Int).self)", #"Strata.ModelProperty("p", _$kind_p, default: 3)"#),
        ("var small: Int16 = -1", "Strata.modelValueKind((Int16).self)", #"Strata.ModelProperty("p", _$kind_p, default: -1)"#),
        ("var medium: Int32", "Strata.modelValueKind((Int32).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("var large: Int64", "Strata.modelValueKind((Int64).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("var ratio: Double = 0.5", "Strata.modelValueKind((Double).self)", #"Strata.ModelProperty("p", _$kind_p, default: 0.5)"#),
        ("var single: Float", "Strata.modelValueKind((Float).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        (#"var text: String = "a""#, "Strata.modelValueKind((String).self)", #"Strata.ModelProperty("p", _$kind_p, default: "a")"#),
        ("var when: Date = .now", "Strata.modelValueKind((Date).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("var id: UUID = UUID()", "Strata.modelValueKind((UUID).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("var blob: Data", "Strata.modelValueKind((Data).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("var link: URL", "Strata.modelValueKind((URL).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("var money: Decimal", "Strata.modelValueKind((Decimal).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("var priority: Priority = .normal", "Strata.modelValueKind((Priority).self)", #"Strata.ModelProperty("p", _$kind_p, default: .normal)"#),
        ("var address: Address", "Strata.modelValueKind((Address).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("var notes: String? = nil", "Strata.modelValueKind((String?).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("var maybe: Optional<Int>", "Strata.modelValueKind((Optional<Int>).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("var owner: Person?", "Strata.modelValueKind((Person?).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("var pets: [Pet] = []", "Strata.modelValueKind(([Pet]).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("var pets: Array<Pet> = []", "Strata.modelValueKind(([Pet]).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("@Relationship(deleteRule: .deny) var pets: [Pet] = []", "Strata.modelValueKind(([Pet]).self)", #"Strata.ModelProperty("p", _$kind_p, deleteRule: .deny)"#),
        ("@Relationship(inverse: \\Person.home) var home: Home?", "Strata.modelValueKind((Home?).self)", #"Strata.ModelProperty("p", _$kind_p, deleteRule: .nullify, inverse: \Person.home)"#),
        (#"@Relationship(originalName: "author") var writer: Person?"#, "Strata.modelValueKind((Person?).self)", #"Strata.ModelProperty("p", _$kind_p, deleteRule: .nullify, originalName: "author")"#),
        (#"@Relationship(deleteRule: .cascade, originalName: "kids", inverse: \Pet.owner) var pets: [Pet] = []"#, "Strata.modelValueKind(([Pet]).self)", #"Strata.ModelProperty("p", _$kind_p, deleteRule: .cascade, originalName: "kids", inverse: \Pet.owner)"#),
        ("@Relationship(originalName: nil) var home: Home?", "Strata.modelValueKind((Home?).self)", #"Strata.ModelProperty("p", _$kind_p, deleteRule: .nullify)"#),
        ("@Attribute(.length(1...9), .pattern(\"[a-z]+\")) var code: String", "Strata.modelValueKind((String).self)", #"Strata.ModelProperty("p", _$kind_p, options: [.length(1 ... 9), .pattern("[a-z]+")])"#),
        (#"@Attribute(originalName: "name") var title: String"#, "Strata.modelValueKind((String).self)", #"Strata.ModelProperty("p", _$kind_p, originalName: "name")"#),
        (#"@Attribute(.length(1...9), originalName: "old") var code: String = "a""#, "Strata.modelValueKind((String).self)", #"Strata.ModelProperty("p", _$kind_p, default: "a", options: [.length(1 ... 9)], originalName: "old")"#),
        ("@Attribute(originalName: nil) var plain: Int", "Strata.modelValueKind((Int).self)", #"Strata.ModelProperty("p", _$kind_p)"#),
        ("@Attribute(.unique) var email: String", "Strata.modelValueKind((String).self)", #"Strata.ModelProperty("p", _$kind_p, options: [.unique])"#),
        ("var inferred = true", "Strata.modelValueKind((Bool).self)", #"Strata.ModelProperty("p", _$kind_p, default: true)"#),
        (#"var inferredText = "x""#, "Strata.modelValueKind((String).self)", #"Strata.ModelProperty("p", _$kind_p, default: "x")"#),
    ])
    func expandsEachSupportedKind(declaration: String, kind: String, description: String) throws {
        let (source, diagnostics) = expand("@Model final class M {\n    \(declaration)\n}")
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.message))")
        let afterVar = try #require(declaration.range(of: "var ")).upperBound
        let name = String(declaration[afterVar...].prefix { $0.isLetter })
        #expect(source.contains("private static let _$kind_\(name) = \(kind)"), "\(source)")
        let expected = description.replacingOccurrences(of: "\"p\"", with: "\"\(name)\"").replacingOccurrences(of: "_$kind_p", with: "_$kind_\(name)")
        #expect(source.contains(expected), "\(source)")
        #expect(source.contains("if keyPath == Self._$keyPath_\(name) {"), "\(source)")
        let valueType = kind.dropFirst("Strata.modelValueKind((".count).dropLast(").self)".count)
        #expect(source.contains("private static let _$keyPath_\(name): any KeyPath<M, \(valueType)> & Sendable = \\M.\(name)"), "\(source)")
        #expect(source.contains("Strata.ModelRegistrar.access(&_$observation, &_$backing, self, keyPath: Self._$keyPath_\(name))"), "\(source)")
    }

    @Test func leavesTransientComputedStaticAndObservedPropertiesAlone() {
        let (source, diagnostics) = expand("""
        @Model final class M {
            @Transient var selected = false
            var computed: Int { 1 }
            var both: Int { get { 1 } set { } }
            static var shared = 0
        }
        """)
        #expect(diagnostics.isEmpty)
        #expect(!source.contains("_$kind_"))
        #expect(source.contains("public static let _$properties: [Strata.ModelProperty] = [\n    ]") || source.contains("[Strata.ModelProperty] = [\n\n    ]") || source.contains("_$properties: [Strata.ModelProperty] = [\n"))
        #expect(source.contains("var selected = false"))
    }
}
