import Foundation

/// Why recording control failed, each a sentence a user can act on.
///
/// The sentences name no command; the command line adds which one to run (its `ErrorHints`).
public enum RecorderError: Error, CustomStringConvertible, Equatable {
    case alreadyRecording(sessionID: String, pid: Int32, databasePath: String)
    case notRecording(databasePath: String)
    case lockFailed(path: String, reason: String)
    case stopTimedOut(sessionID: String, pid: Int32, seconds: Double)
    case startFailed(reason: String)
    /// A change that would pull the database from under a running recorder.
    case recordingInProgress(action: String, sessionID: String, pid: Int32, databasePath: String)
    /// A marker's time outside the running session's span (`RecordingSpan`).
    case markerOutsideSession(timeSeconds: Double, sessionID: String, beginSeconds: Double, nowSeconds: Double)
    /// liblsl could not be loaded; the reason says where it was looked for and how to install it.
    case labStreamingUnavailable(reason: String)
    /// An LSL stream could not be published, or a marker stream found or subscribed to.
    case labStreamingFailed(reason: String)

    public var description: String {
        switch self {
        case let .alreadyRecording(id, pid, path) where id == RecorderInfo.unknownSession && pid != 0:
            return "cannot start: process \(pid) is starting a recording into \(path)."
        case let .alreadyRecording(id, pid, path) where pid == 0:
            return "cannot start: another process is recording into \(path)\(id == RecorderInfo.unknownSession ? "" : " (session \(id))")."
        case let .alreadyRecording(id, pid, path):
            return "cannot start: session \(id) is being recorded into \(path) by process \(pid)."
        case let .notRecording(path):
            return "no recorder is running for \(path)."
        case let .lockFailed(path, reason):
            return "cannot use the recorder lock \(path): \(reason)."
        case let .stopTimedOut(id, pid, seconds):
            return "recorder \(pid) did not close session \(id) within \(Int(seconds)) s. It may still be flushing; "
                + "stop it with kill \(pid) (the session can be closed later)."
        case let .startFailed(reason):
            return "the recorder did not start: \(reason)"
        case let .recordingInProgress(action, id, pid, path) where id == RecorderInfo.unknownSession:
            return "cannot \(action): process \(pid) is starting a recording into \(path); nothing was deleted."
        case let .recordingInProgress(action, id, pid, path):
            return "cannot \(action): session \(id) is being recorded into \(path) by process \(pid); nothing was deleted."
        case let .markerOutsideSession(time, id, begin, now):
            return "a marker at \(Self.timeText(time)) lies outside session \(id), which began at \(Self.timeText(begin)) "
                + "and is recording now, at \(Self.timeText(now)). Give a time between the two (Unix seconds)."
        case let .labStreamingUnavailable(reason), let .labStreamingFailed(reason):
            return reason
        }
    }

    /// Unix seconds in a message, with the UTC time they stand for (1764070000.25 (2026-11-25 11:26:40.250 UTC)).
    static func timeText(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e11 else { return String(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        return "\(String(format: "%.3f", seconds)) (\(formatter.string(from: Date(timeIntervalSince1970: seconds))) UTC)"
    }
}
