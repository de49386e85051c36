import SwiftDiagnostics
public import SwiftSyntax
public import SwiftSyntaxMacros

/// `@Model`: the members that make a final class a ``PersistentModel``, `@_PersistedProperty`
/// on each persisted property, and the conformance.
public struct ModelMacro {}

extension ModelMacro: MemberMacro {
    /// The code this macro generates where it is attached.
    public static func expansion(of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
                                 conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAClass(kindName(declaration))))
            return []
        }
        let className = classDecl.name.text
        if !classDecl.modifiers.contains(where: { $0.name.text == "final" }) {
            let fixed = classDecl.with(\.modifiers, classDecl.modifiers + [DeclModifierSyntax(name: .keyword(.final), trailingTrivia: .space)])
            let fix = FixIt(message: ModelFixIt(message: "Add 'final'"),
                            changes: [.replace(oldNode: Syntax(classDecl.modifiers), newNode: Syntax(fixed.modifiers))])
            context.diagnose(Diagnostic(node: classDecl.classKeyword, message: ModelDiagnostic.notFinal(className), fixIts: [fix]))
        }
        var properties: [PersistedPropertySyntax] = []
        for member in declaration.memberBlock.members {
            if let deinitializer = member.decl.as(DeinitializerDeclSyntax.self) {
                context.diagnose(Diagnostic(node: deinitializer.deinitKeyword, message: ModelDiagnostic.deinitializer(className)))
                return []
            }
            switch PersistedPropertySyntax.read(member.decl) {
            case .skipped: break
            case .problem(let diagnostic): context.diagnose(diagnostic)
            case .persisted(let property): properties.append(property)
            }
        }
        let descriptions = properties.map { description(of: $0) }.joined(separator: ",\n")
        let keyPaths = properties.map { "if keyPath == Self._$keyPath_\($0.name) { return \"\($0.name)\" }" }.joined(separator: "\n")
        let mutations = properties.map { "_$observationRegistrar.withMutation(of: self, keyPath: Self._$keyPath_\($0.name)) {}" }.joined(separator: "\n")
        let stand_ins = properties.map { "self._$\($0.name) = Strata.ModelNoStorage()" }.joined(separator: "\n")
        return [
            "@exclusivity(unchecked) public var _$backing = Strata.ModelBacking()",
            "@exclusivity(unchecked) public var _$observation: Strata.ModelRegistrar? = nil",
            """
            private var _$observationRegistrar: Strata.ModelRegistrar {
            Strata.ModelRegistrar.registrar(&_$observation, &_$backing)
            }
            """,
            """
            public init(_$backing backing: Strata.ModelBacking) {
            \(raw: stand_ins)
            self._$backing = backing
            }
            """,
            "public static let entityName = \(literal: className)",
            """
            public static let _$properties: [Strata.ModelProperty] = [
            \(raw: descriptions)
            ]
            """,
            "public static let _$layout = Strata.ModelLayout(_$properties)",
        ] + properties.map { keyPathDeclaration(of: $0, in: className) } + [
            """
            public static func _$propertyName(for keyPath: AnyKeyPath) -> String? {
            \(raw: keyPaths)
            return nil
            }
            """,
            """
            deinit {
            _$backing.modelDidDeinit()
            }
            """,
            """
            public func _$persistedPropertiesDidChange() {
            \(raw: mutations)
            }
            """,
        ]
    }

    /// The key path of one property, made once for the class: the accessors hand it to
    /// Observation on every read and write, and a key path literal there would be made
    /// (`swift_getKeyPath`) and released on each. `Sendable` (a key path literal that
    /// captures nothing is), so the `static let` is concurrency-safe without `nonisolated(unsafe)`.
    static func keyPathDeclaration(of property: PersistedPropertySyntax, in className: String) -> DeclSyntax {
        "private static let _$keyPath_\(raw: property.name): any KeyPath<\(raw: className), \(property.valueType)> & Sendable = \\\(raw: className).\(raw: property.name)"
    }

    /// The `ModelProperty` of one property.
    static func description(of property: PersistedPropertySyntax) -> String {
        var arguments = ["\"\(property.name)\"", "_$kind_\(property.name)"]
        if let relationship = property.relationshipArguments {
            let deleteRule = relationship.first { $0.label?.text == "deleteRule" }?.expression.trimmedDescription
            let inverse = relationship.first { $0.label?.text == "inverse" }?.expression.trimmedDescription
            let originalName = relationship.first { $0.label?.text == "originalName" }?.expression.trimmedDescription
            arguments.append("deleteRule: \(deleteRule ?? ".nullify")")
            if let originalName, originalName != "nil" { arguments.append("originalName: \(originalName)") }
            if let inverse, inverse != "nil" { arguments.append("inverse: \(inverse)") }
        } else {
            if let value = property.recordedDefault { arguments.append("default: \(value.trimmedDescription)") }
            if let options = property.attributeArguments?.filter({ $0.label == nil }), !options.isEmpty {
                arguments.append("options: [\(options.map(\.expression.trimmedDescription).joined(separator: ", "))]")
            }
            if let originalName = property.attributeArguments?.first(where: { $0.label?.text == "originalName" })?.expression,
               !originalName.is(NilLiteralExprSyntax.self) {
                arguments.append("originalName: \(originalName.trimmedDescription)")
            }
        }
        return "Strata.ModelProperty(\(arguments.joined(separator: ", ")))"
    }

    static func kindName(_ declaration: some DeclGroupSyntax) -> String {
        if declaration.is(StructDeclSyntax.self) { return "struct" }
        if declaration.is(EnumDeclSyntax.self) { return "enum" }
        if declaration.is(ActorDeclSyntax.self) { return "actor" }
        if declaration.is(ProtocolDeclSyntax.self) { return "protocol" }
        return "extension"
    }
}

extension ModelMacro: MemberAttributeMacro {
    /// The code this macro generates where it is attached.
    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingAttributesFor member: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AttributeSyntax] {
        guard declaration.is(ClassDeclSyntax.self), case .persisted(let property) = PersistedPropertySyntax.read(member) else { return [] }
        var index = 0
        for other in declaration.memberBlock.members {
            guard case .persisted(let candidate) = PersistedPropertySyntax.read(other.decl) else { continue }
            if candidate.name == property.name { break }
            index += 1
        }
        return ["@_PersistedProperty(\(literal: index))"]
    }
}

extension ModelMacro: ExtensionMacro {
    /// The code this macro generates where it is attached.
    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self), !protocols.isEmpty else { return [] }
        let names = protocols.map(\.trimmedDescription)
        var conformances: [String] = []
        if names.contains(where: { $0.hasSuffix("PersistentModel") }) { conformances.append("Strata.PersistentModel") }
        if names.contains(where: { $0.hasSuffix("Observable") }) { conformances.append("Observation.Observable") }
        guard !conformances.isEmpty else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): \(raw: conformances.joined(separator: ", ")) {}")]
    }
}
