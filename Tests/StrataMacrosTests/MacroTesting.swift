import SwiftDiagnostics
import SwiftParser
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import StrataMacros
import Testing

/// The macros under test, by the names user code writes.
let strataMacros: [String: MacroSpec] = [
    "Model": MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel", "Observable"]),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "Attribute": MacroSpec(type: AttributeMacro.self),
    "Relationship": MacroSpec(type: RelationshipMacro.self),
    "Transient": MacroSpec(type: TransientMacro.self),
    "ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"]),
    "Index": MacroSpec(type: IndexMacro.self),
    "Unique": MacroSpec(type: UniqueMacro.self),
]

/// `assertMacroExpansion` reporting to Swift Testing.
func assertExpansion(_ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [],
                     applyFixIts: [String]? = nil, fixedSource: String? = nil,
                     fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                     line: UInt = #line, column: UInt = #column) {
    assertMacroExpansion(source, expandedSource: expandedSource, diagnostics: diagnostics, macroSpecs: strataMacros,
                         applyFixIts: applyFixIts, fixedSource: fixedSource,
                         failureHandler: { failure in
                             Issue.record(Comment(rawValue: failure.message),
                                          sourceLocation: SourceLocation(fileID: failure.location.fileID, filePath: failure.location.filePath,
                                                                         line: failure.location.line, column: failure.location.column))
                         },
                         fileID: fileID, filePath: filePath, line: line, column: column)
}

/// The expansion of `source` with Strata's macros, and the diagnostics they reported.
func expand(_ source: String) -> (source: String, diagnostics: [Diagnostic]) {
    let file = Parser.parse(source: source)
    let context = BasicMacroExpansionContext(sourceFiles: [file: .init(moduleName: "TestModule", fullFilePath: "test.swift")])
    let expanded = file.expand(macroSpecs: strataMacros, contextGenerator: { _ in context }, indentationWidth: .spaces(4))
    return (expanded.description, context.diagnostics)
}
