/// Thrown by a Strata-side workload function whose API has not landed yet.
///
/// The runner records no figure for it: the table prints "pending" and the JSON has `null`,
/// never a made-up number. Replace the `throw` with the real measurement when the API lands.
struct StrataPending: Error, CustomStringConvertible {
    /// The Strata API the workload is waiting for, e.g. "BatchUpdateRequest".
    let waitingFor: String

    init(_ waitingFor: String) {
        self.waitingFor = waitingFor
    }

    var description: String {
        "Strata side pending: waiting for \(waitingFor)"
    }
}
