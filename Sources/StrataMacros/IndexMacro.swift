public import SwiftSyntax
public import SwiftSyntaxMacros

/// `#Index<Model>([\.a], [\.b, \.c])` in a model's body: the indexes as key paths, in a
/// static `_$indexKeyPaths` that `Schema(models)` turns into the entity's indexes.
public struct IndexMacro: DeclarationMacro {
    /// The code this macro generates where it is written.
    public static func expansion(of node: some FreestandingMacroExpansionSyntax,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        KeyPathListsExpansion.expansion(of: node, in: context, name: "Index", noun: "index",
                                        member: "_$indexKeyPaths", local: "indexes", idPrefix: "index")
    }
}
