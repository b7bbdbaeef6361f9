import Foundation
import GazeVision

/// The warning `calibrate` gives when its first second's seating is out of range: at once, or,
/// while a full-screen view is drawn (`deferred`), when it has been left.
final class SeatingWarning: @unchecked Sendable {
    private let deferred: Bool
    private var pending: String?

    init(deferred: Bool) {
        self.deferred = deferred
    }

    /// The first second's report (the pipeline calls this on the frame thread).
    func tell(_ report: SeatingReport) {
        guard !report.ok else { return }
        let text = "warning: seating: \(report.adviceWithOption) ('gazerec position' shows the seating live)"
        if deferred { pending = text } else { Console.note(text) }
    }

    /// Says a deferred warning (call after the full-screen view is left).
    func flush() {
        if let pending { Console.note(pending) }
        pending = nil
    }
}

extension SeatingReport {
    /// The first advice, with the option that carries it out where there is one (a turned
    /// picture: `--rotate N`).
    var adviceWithOption: String {
        guard case .pictureTurned(let degrees)? = advice.first else { return adviceText }
        return adviceText + " (--rotate \(degrees))"
    }
}
