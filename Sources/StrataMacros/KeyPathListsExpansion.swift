import SwiftSyntax
import SwiftSyntaxMacros
import SwiftDiagnostics

/// The expansion `#Index` and `#Unique` share: `#Name<Model>([\.a], [\.b, \.c])` becomes a
/// static property holding the arrays of key paths.
enum KeyPathListsExpansion {
    /// The declaration of `member` (a `[[AnyKeyPath]]`) from the macro's arguments; `name`
    /// is the macro's name, `noun` what one argument is ("index"), `local` the name of the
    /// typed local the getter returns, `idPrefix` the prefix of
    /// diagnostic IDs. Diagnoses and returns nothing when the arguments are not arrays of
    /// key paths.
    static func expansion(of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext,
                          name: String, noun: String, member: String, local: String, idPrefix: String) -> [DeclSyntax] {
        guard let model = node.genericArgumentClause?.arguments.first?.argument else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic(
                message: "#\(name) needs the model's type, as in '#\(name)<Person>([\\.email])'", id: "\(idPrefix)WithoutModel")))
            return []
        }
        guard !node.arguments.isEmpty else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic(
                message: "#\(name) lists no \(noun); write one array of key paths per \(noun), as in '#\(name)<\(model.trimmed)>([\\.email], [\\.lastName, \\.firstName])'", id: "\(idPrefix)Empty")))
            return []
        }
        var lists: [String] = []
        for argument in node.arguments {
            guard argument.label == nil, let array = argument.expression.as(ArrayExprSyntax.self), !array.elements.isEmpty,
                  array.elements.allSatisfy({ $0.expression.is(KeyPathExprSyntax.self) }) else {
                context.diagnose(Diagnostic(node: argument, message: ModelDiagnostic(
                    message: "each #\(name) argument is one \(noun): a non-empty array of key paths such as '[\\.lastName, \\.firstName]'", id: "\(idPrefix)NotKeyPaths")))
                return []
            }
            lists.append("[" + array.elements.map { $0.expression.trimmedDescription }.joined(separator: ", ") + "]")
        }
        return [
            """
            static var \(raw: member): [[AnyKeyPath]] {
            let \(raw: local): [[PartialKeyPath<\(model.trimmed)>]] = [\(raw: lists.joined(separator: ", "))]
            return \(raw: local)
            }
            """,
        ]
    }
}
