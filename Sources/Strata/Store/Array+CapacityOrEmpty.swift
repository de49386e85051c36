extension Array {
    /// `Array(unsafeUninitializedCapacity:initializingWith:)`, except that a capacity of 0
    /// gives `[]` without calling `body`.
    ///
    /// For a capacity of 0 the standard library hands out its shared empty-array storage and
    /// writes the count (0) into it; two threads doing so at once is a data race in the
    /// thread sanitizer's eyes (a benign one: both write 0), which fails `scripts/tsan`.
    @inline(__always)
    init(capacityOrEmpty capacity: Int,
         initializingWith body: (inout UnsafeMutableBufferPointer<Element>, inout Int) throws -> Void) rethrows {
        if capacity == 0 {
            self = []
        } else {
            try self.init(unsafeUninitializedCapacity: capacity, initializingWith: body)
        }
    }
}
