import Foundation
import StrataModels

/// People in teams, for the predicate tests.
@Model final class Person {
    var name: String
    var age: Int
    var score: Double
    var active: Bool
    var nickname: String?
    var born: Date
    var team: Team?
    init(name: String, age: Int, score: Double, active: Bool, nickname: String?, born: Date) {
        self.name = name; self.age = age; self.score = score; self.active = active; self.nickname = nickname; self.born = born
    }
}

@Model final class Team {
    var name: String
    var members: [Person] = []
    init(name: String) { self.name = name }
}
