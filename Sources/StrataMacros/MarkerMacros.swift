public import SwiftSyntax
public import SwiftSyntaxMacros

/// `@Attribute(...)`: read by `@Model`; generates nothing itself.
public struct AttributeMacro: PeerMacro {
    /// The code this macro generates where it is attached.
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] { [] }
}

/// `@Relationship(deleteRule:originalName:inverse:)`: read by `@Model`; generates nothing itself.
public struct RelationshipMacro: PeerMacro {
    /// The code this macro generates where it is attached.
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] { [] }
}

/// `@Transient`: read by `@Model`, which leaves the property alone; generates nothing.
public struct TransientMacro: PeerMacro {
    /// The code this macro generates where it is attached.
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] { [] }
}
