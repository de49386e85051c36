public import SwiftSyntax
public import SwiftSyntaxMacros
import SwiftDiagnostics

/// `@ModelActor`: a private-queue context, an executor on its queue, `init(store:)`, and the
/// conformance to `ModelActor`.
public struct ModelActorMacro {}

extension ModelActorMacro: MemberMacro {
    /// The code this macro generates where it is attached.
    public static func expansion(of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
                                 conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic(message: "@ModelActor applies to an actor, not to a \(ModelMacro.kindName(declaration) == "extension" ? "class" : ModelMacro.kindName(declaration))", id: "notAnActor")))
            return []
        }
        return [
            "public nonisolated let modelContext: Strata.ObjectContext",
            "public nonisolated let modelExecutor: Strata.ModelExecutor",
            """
            public init(store: Strata.PersistentStore) {
            let context = Strata.ObjectContext(store: store)
            self.modelContext = context
            self.modelExecutor = Strata.ModelExecutor(context: context)
            }
            """,
        ]
    }
}

extension ModelActorMacro: ExtensionMacro {
    /// The code this macro generates where it is attached.
    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self), !protocols.isEmpty else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): Strata.ModelActor {}")]
    }
}
