public import SwiftSyntax
public import SwiftSyntaxMacros

/// `#Unique<Model>([\.email], [\.first, \.last])` in a model's body: the uniqueness
/// constraints as key paths, in a static `_$uniqueKeyPaths` that `Schema(models)` turns
/// into the entity's uniqueness constraints.
public struct UniqueMacro: DeclarationMacro {
    /// The code this macro generates where it is written.
    public static func expansion(of node: some FreestandingMacroExpansionSyntax,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        KeyPathListsExpansion.expansion(of: node, in: context, name: "Unique", noun: "constraint",
                                        member: "_$uniqueKeyPaths", local: "constraints", idPrefix: "unique")
    }
}
