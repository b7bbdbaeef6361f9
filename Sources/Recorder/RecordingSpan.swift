import Foundation
import GazeCapture

/// The times a running session's markers may have: from its begin until now, plus a little.
///
/// A marker is a moment of the recording, so a time before the session began or after now (by
/// more than `toleranceSeconds`, for a clock read a moment before it was sent) cannot belong to it:
/// a typo, milliseconds given for seconds, or another machine's clock.
public struct RecordingSpan: Sendable, Equatable {
    /// The session's begin, Unix seconds.
    public var beginSeconds: Double
    /// How far past now a marker's time may lie.
    public var toleranceSeconds: Double

    public init(beginSeconds: Double, toleranceSeconds: Double = 1) {
        self.beginSeconds = beginSeconds
        self.toleranceSeconds = toleranceSeconds
    }

    /// Why a marker at `timeSeconds` (Unix) cannot go into session `sessionID` as of `nowSeconds`,
    /// nil when it can.
    public func refusal(of timeSeconds: Double, sessionID: String, nowSeconds: Double = SystemClock.unixTime())
        -> RecorderError? {
        guard timeSeconds.isFinite, timeSeconds >= beginSeconds, timeSeconds <= nowSeconds + toleranceSeconds else {
            return .markerOutsideSession(timeSeconds: timeSeconds, sessionID: sessionID, beginSeconds: beginSeconds,
                                         nowSeconds: nowSeconds)
        }
        return nil
    }
}
