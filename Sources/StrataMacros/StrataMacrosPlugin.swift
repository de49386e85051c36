import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that serves Strata's macros.
@main
struct StrataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ModelMacro.self, PersistedPropertyMacro.self, AttributeMacro.self, RelationshipMacro.self, TransientMacro.self,
        ModelActorMacro.self, IndexMacro.self, UniqueMacro.self,
    ]
}
