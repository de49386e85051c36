import Foundation
import StrataModels

/// A `Codable` struct stored as binary.
struct Address: Codable, Hashable {
    var street: String
    var city: String
}

/// An `Int`-backed enum.
enum Level: Int, Codable {
    case one = 1, two = 2, three = 3
}

/// One property of every supported kind.
@Model final class Kinds {
    var flag: Bool = false
    var int: Int = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var double: Double = 0
    var float: Float = 0
    var string: String = ""
    var date: Date = Date(timeIntervalSince1970: 0)
    var uuid: UUID = UUID()
    var data: Data = Data()
    var url: URL = URL(fileURLWithPath: "/")
    var decimal: Decimal = 0
    var priority: Priority = .normal
    var level: Level = .one
    var address: Address = Address(street: "", city: "")
    var optionalFlag: Bool?
    var optionalInt: Int?
    var optionalString: String?
    var optionalDate: Date?
    var optionalDecimal: Decimal?
    var optionalPriority: Priority?
    var optionalLevel: Level?
    var optionalAddress: Address?
    @Attribute(.length(1...20)) var code: String = "x"
    @Attribute(.range(0...10)) var score: Int16 = 0
    var inferred = 3
    init() {}
}
