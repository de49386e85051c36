public enum StorageFormat { public static let majorVersion: UInt16 = 1 }
