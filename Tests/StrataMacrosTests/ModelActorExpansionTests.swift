import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite struct ModelActorExpansionTests {
    @Test func expandsAnActor() {
        assertExpansion("""
        @ModelActor actor Importer {
        }
        """, expandedSource: """
        actor Importer {

            public nonisolated let modelContext: Strata.ObjectContext

            public nonisolated let modelExecutor: Strata.ModelExecutor

            public init(store: Strata.PersistentStore) {
                let context = Strata.ObjectContext(store: store)
                self.modelContext = context
                self.modelExecutor = Strata.ModelExecutor(context: context)
            }
        }

        extension Importer: Strata.ModelActor {
        }
        """)
    }

    @Test func isForActorsOnly() {
        let (_, diagnostics) = expand("@ModelActor final class Importer {\n}")
        #expect(diagnostics.map(\.message) == ["@ModelActor applies to an actor, not to a class"])
    }
}
