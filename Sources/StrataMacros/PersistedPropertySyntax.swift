import SwiftDiagnostics
import SwiftSyntax

/// A stored property of a `@Model` class, read from its declaration.
struct PersistedPropertySyntax {
    let name: String
    let declaration: VariableDeclSyntax
    /// The declared type, or the one inferred from a literal initializer.
    let type: TypeSyntax
    let kind: PropertyType
    let initializer: ExprSyntax?

    /// The property's type as the generated code spells it: the declared (or inferred) type,
    /// with a to-many relationship written `[Element]` whichever way it was declared.
    var valueType: TypeSyntax {
        if case .toMany(let element) = kind { return "[\(element)]" }
        return type
    }

    /// The arguments of `@Attribute(...)`, if written.
    var attributeArguments: LabeledExprListSyntax? { Self.arguments(of: "Attribute", in: declaration) }
    /// The arguments of `@Relationship(...)`, if written.
    var relationshipArguments: LabeledExprListSyntax? { Self.arguments(of: "Relationship", in: declaration) }

    /// What a member of the class is to the model.
    enum Reading {
        /// Not a persisted property (computed, static, `@Transient`, generated).
        case skipped
        /// A persisted property.
        case persisted(PersistedPropertySyntax)
        /// A stored property that cannot be persisted, and why.
        case problem(Diagnostic)
    }

    /// Reads `member`.
    static func read(_ member: some DeclSyntaxProtocol) -> Reading {
        guard let variable = member.as(VariableDeclSyntax.self) else { return .skipped }
        if variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) }) { return .skipped }
        if hasAttribute("Transient", variable) {
            if let binding = variable.bindings.first, binding.initializer == nil, binding.accessorBlock == nil,
               let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text {
                return .problem(Diagnostic(node: variable, message: ModelDiagnostic.transientNeedsDefault(name)))
            }
            return .skipped
        }
        guard let binding = variable.bindings.first,
              let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { return .skipped }
        if name.hasPrefix("_$") { return .skipped }
        if let accessors = binding.accessorBlock {
            switch accessors.accessors {
            case .getter: return .skipped
            case .accessors(let list):
                let kinds = list.map(\.accessorSpecifier.tokenKind)
                if kinds.contains(.keyword(.get)) || kinds.contains(.keyword(.set)) || kinds.contains(.keyword(.`init`)) { return .skipped }
                return .problem(Diagnostic(node: variable, message: ModelDiagnostic.observers(name)))
            }
        }
        if variable.bindings.count > 1 {
            return .problem(Diagnostic(node: variable, message: ModelDiagnostic.multipleBindings()))
        }
        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            let fix = FixIt(message: ModelFixIt(message: "Replace 'let' with 'var'"),
                            changes: [.replace(oldNode: Syntax(variable.bindingSpecifier),
                                               newNode: Syntax(TokenSyntax.keyword(.var, leadingTrivia: variable.bindingSpecifier.leadingTrivia, trailingTrivia: variable.bindingSpecifier.trailingTrivia)))])
            return .problem(Diagnostic(node: variable, message: ModelDiagnostic.letProperty(name), fixIts: [fix]))
        }
        if variable.modifiers.contains(where: { $0.name.text == "lazy" }) {
            return .problem(Diagnostic(node: variable, message: ModelDiagnostic.lazyProperty(name)))
        }
        let initializer = binding.initializer?.value
        guard let type = binding.typeAnnotation?.type ?? initializer.flatMap(inferredType) else {
            return .problem(Diagnostic(node: variable, message: ModelDiagnostic.missingType(name)))
        }
        let kind = PropertyType.classify(type)
        if case .unsupported(let reason) = kind {
            return .problem(Diagnostic(node: binding.typeAnnotation.map(Syntax.init) ?? Syntax(variable), message: ModelDiagnostic.unsupportedType(name, reason)))
        }
        let property = PersistedPropertySyntax(name: name, declaration: variable, type: type.trimmed, kind: kind, initializer: initializer)
        if case .toMany = kind, property.attributeArguments != nil {
            return .problem(Diagnostic(node: variable, message: ModelDiagnostic.attributeOnRelationship(name)))
        }
        return .persisted(property)
    }

    /// The type of a literal initializer.
    static func inferredType(_ expression: ExprSyntax) -> TypeSyntax? {
        if expression.is(BooleanLiteralExprSyntax.self) { return "Bool" }
        if expression.is(IntegerLiteralExprSyntax.self) { return "Int" }
        if expression.is(FloatLiteralExprSyntax.self) { return "Double" }
        if let string = expression.as(StringLiteralExprSyntax.self),
           string.segments.allSatisfy({ $0.is(StringSegmentSyntax.self) }) { return "String" }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return inferredType(prefix.expression)
        }
        return nil
    }

    static func hasAttribute(_ name: String, _ variable: VariableDeclSyntax) -> Bool {
        variable.attributes.contains { element in
            guard case .attribute(let attribute) = element else { return false }
            return attribute.attributeName.trimmedDescription == name
                || attribute.attributeName.trimmedDescription.hasSuffix(".\(name)")
        }
    }

    static func arguments(of name: String, in variable: VariableDeclSyntax) -> LabeledExprListSyntax? {
        for element in variable.attributes {
            guard case .attribute(let attribute) = element else { continue }
            let written = attribute.attributeName.trimmedDescription
            guard written == name || written.hasSuffix(".\(name)") else { continue }
            if case .argumentList(let list) = attribute.arguments { return list }
            return LabeledExprListSyntax([])
        }
        return nil
    }

    /// The declared default as the schema records it: a literal, or an enum case
    /// (`.normal`) of a type that is not a standard one; `nil` for anything computed
    /// (`.now`, a call), which would make the schema differ from run to run.
    var recordedDefault: ExprSyntax? {
        guard let initializer, case .value(let type) = kind else { return nil }
        if initializer.is(NilLiteralExprSyntax.self) { return nil }
        if Self.inferredType(initializer) != nil { return initializer }
        if let member = initializer.as(MemberAccessExprSyntax.self), member.base == nil {
            var base = type
            if let optional = type.as(OptionalTypeSyntax.self) { base = optional.wrappedType }
            if PropertyType.storedNames.contains(PropertyType.baseName(base)) { return nil }
            return initializer
        }
        return nil
    }
}
