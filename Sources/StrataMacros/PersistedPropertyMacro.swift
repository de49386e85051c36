public import SwiftSyntax
public import SwiftSyntaxMacros

/// `@_PersistedProperty(index)`, added by `@Model` to each persisted property: accessors
/// that read and write the model's backing (and tell observers, with the key path `@Model`
/// declares once per property), a stand-in the `init` accessor initializes, and the
/// property's kind.
public struct PersistedPropertyMacro {}

extension PersistedPropertyMacro: AccessorMacro {
    /// The code this macro generates where it is attached.
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        guard case .persisted(let property) = PersistedPropertySyntax.read(declaration), let index = index(node) else { return [] }
        let name = property.name
        return [
            """
            @storageRestrictions(accesses: _$backing, initializes: _$\(raw: name))
            init(initialValue) {
            _$backing.setValue(Self._$layout, \(literal: index), Self._$kind_\(raw: name), initialValue)
            _$\(raw: name) = Strata.ModelNoStorage()
            }
            """,
            """
            get {
            Strata.ModelRegistrar.access(&_$observation, &_$backing, self, keyPath: Self._$keyPath_\(raw: name))
            return _$backing.value(Self._$layout, \(literal: index), Self._$kind_\(raw: name))
            }
            """,
            """
            set {
            _$observationRegistrar.withMutation(of: self, keyPath: Self._$keyPath_\(raw: name)) {
            _$backing.setValue(Self._$layout, \(literal: index), Self._$kind_\(raw: name), newValue)
            }
            }
            """,
        ]
    }

    static func index(_ node: AttributeSyntax) -> Int? {
        guard case .argumentList(let arguments) = node.arguments,
              let literal = arguments.first?.expression.as(IntegerLiteralExprSyntax.self) else { return nil }
        return Int(literal.literal.text)
    }
}

extension PersistedPropertyMacro: PeerMacro {
    /// The code this macro generates where it is attached.
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard case .persisted(let property) = PersistedPropertySyntax.read(declaration) else { return [] }
        return [
            "private var _$\(raw: property.name): Strata.ModelNoStorage",
            "private static let _$kind_\(raw: property.name) = Strata.modelValueKind((\(property.valueType)).self)",
        ]
    }
}
