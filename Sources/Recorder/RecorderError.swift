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
        }
    }
}
