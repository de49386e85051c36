import SwiftDiagnostics

/// An error the `@Model` macros report, naming the class or property.
struct ModelDiagnostic: DiagnosticMessage {
    let message: String
    let id: String

    var diagnosticID: MessageID { MessageID(domain: "StrataMacros", id: id) }
    var severity: DiagnosticSeverity { .error }

    static func notAClass(_ kind: String) -> Self {
        Self(message: "@Model applies to a final class, not to a \(kind); persistent models are reference types", id: "notAClass")
    }

    static func notFinal(_ name: String) -> Self {
        Self(message: "@Model class '\(name)' must be final (Strata does not persist subclasses); add 'final'", id: "notFinal")
    }

    static func unsupportedType(_ property: String, _ reason: String) -> Self {
        Self(message: "property '\(property)' cannot be persisted: \(reason); or mark it @Transient", id: "unsupportedType")
    }

    static func missingType(_ property: String) -> Self {
        Self(message: "property '\(property)' needs a type annotation (only Bool, Int, Double and String literals are inferred), for example 'var \(property): Date = .now'", id: "missingType")
    }

    static func letProperty(_ property: String) -> Self {
        Self(message: "persisted property '\(property)' must be 'var' (a model's stored values change when its object is refreshed or merged); write 'var', or mark it @Transient", id: "letProperty")
    }

    static func observers(_ property: String) -> Self {
        Self(message: "persisted property '\(property)' cannot have willSet/didSet (its value also changes on refresh and merge); observe the model instead (it is Observable), or mark it @Transient", id: "observers")
    }

    static func lazyProperty(_ property: String) -> Self {
        Self(message: "persisted property '\(property)' cannot be lazy; mark it @Transient", id: "lazyProperty")
    }

    static func multipleBindings() -> Self {
        Self(message: "declare one persisted property per 'var' (as 'var a: Int' and 'var b: Int')", id: "multipleBindings")
    }

    static func transientNeedsDefault(_ property: String) -> Self {
        Self(message: "@Transient property '\(property)' needs a default value: objects fetched from the store are made without your initializer", id: "transientNeedsDefault")
    }

    static func deinitializer(_ name: String) -> Self {
        Self(message: "@Model class '\(name)' cannot declare deinit: @Model generates one (the model's object forgets it there); release resources elsewhere, such as in a @Transient property's own type", id: "deinitializer")
    }

    static func attributeOnRelationship(_ property: String) -> Self {
        Self(message: "'\(property)' is a to-many relationship; use @Relationship(deleteRule:inverse:) instead of @Attribute", id: "attributeOnRelationship")
    }
}

/// A fix-it's message.
struct ModelFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "StrataMacros", id: message) }
}
