import Foundation
import StrataModels
import Testing

@Suite struct BetweenTranslationTests {
    @Test func aClosedRangeOfOneKeyIsBetween() throws {
        let between = try ObjectPredicate(format: "age BETWEEN {100, 200}")
        #expect(try FetchDescriptor<Person>(predicate: #Predicate { $0.age >= 100 && $0.age <= 200 }).fetchRequest().predicate == between)
        #expect(try FetchDescriptor<Person>(predicate: #Predicate { $0.age <= 200 && $0.age >= 100 }).fetchRequest().predicate == between)
        // Other shapes stay a conjunction.
        #expect(try FetchDescriptor<Person>(predicate: #Predicate { $0.age > 100 && $0.age <= 200 }).fetchRequest().predicate
                == (try ObjectPredicate(format: "age > 100 AND age <= 200")))
        #expect(try FetchDescriptor<Person>(predicate: #Predicate { $0.age >= 100 && $0.score <= 200 }).fetchRequest().predicate
                == (try ObjectPredicate(format: "age >= 100 AND score <= 200.0")))
    }
}
