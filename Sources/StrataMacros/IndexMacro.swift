public import SwiftSyntax
public import SwiftSyntaxMacros
import SwiftDiagnostics

/// `#Index<Model>([\.a], [\.b, \.c])` in a model's body: the indexes as key paths, in a
/// static `_$indexKeyPaths` that `Schema(models)` turns into the entity's indexes.
public struct IndexMacro: DeclarationMacro {
    /// The code this macro generates where it is written.
    public static func expansion(of node: some FreestandingMacroExpansionSyntax,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let model = node.genericArgumentClause?.arguments.first?.argument else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic(
                message: "#Index needs the model's type, as in '#Index<Person>([\\.email])'", id: "indexWithoutModel")))
            return []
        }
        guard !node.arguments.isEmpty else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic(
                message: "#Index lists no index; write one array of key paths per index, as in '#Index<\(model.trimmed)>([\\.email], [\\.lastName, \\.firstName])'", id: "indexEmpty")))
            return []
        }
        var indexes: [String] = []
        for argument in node.arguments {
            guard argument.label == nil, let array = argument.expression.as(ArrayExprSyntax.self), !array.elements.isEmpty,
                  array.elements.allSatisfy({ $0.expression.is(KeyPathExprSyntax.self) }) else {
                context.diagnose(Diagnostic(node: argument, message: ModelDiagnostic(
                    message: "each #Index argument is one index: a non-empty array of key paths such as '[\\.lastName, \\.firstName]'", id: "indexNotKeyPaths")))
                return []
            }
            indexes.append("[" + array.elements.map { $0.expression.trimmedDescription }.joined(separator: ", ") + "]")
        }
        return [
            """
            static var _$indexKeyPaths: [[AnyKeyPath]] {
            let indexes: [[PartialKeyPath<\(model.trimmed)>]] = [\(raw: indexes.joined(separator: ", "))]
            return indexes
            }
            """,
        ]
    }
}
