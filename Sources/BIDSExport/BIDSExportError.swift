/// What can go wrong writing an Eye-Tracking-BIDS dataset, as data: the caller words the hint.
public enum BIDSExportError: Error, CustomStringConvertible, Equatable {
    /// A BIDS label (subject, session, task) is empty or holds characters other than letters and digits.
    case invalidLabel(entity: String, label: String)
    /// A session's subject label was to come from its app id, which holds no ASCII letter or digit.
    case noSubjectLabel(sessionID: String, appID: String)
    /// The recording has neither gaze samples nor per-eye frame values: there is nothing to write.
    case nothingToExport(sessionID: String)
    /// On-screen gaze needs the screen's physical size and the viewing distance (BIDS requires
    /// them for `gaze-on-screen` recordings), and the recording has none.
    case screenGeometryUnknown(sessionID: String)
    /// A file or folder of the dataset could not be read, created or written.
    case io(action: String, path: String, reason: String)
    /// A file already in the dataset is not what BIDS says it is (a `participants.tsv` without a header).
    case malformedDatasetFile(path: String, reason: String)

    public var description: String {
        switch self {
        case let .invalidLabel(entity, label):
            return "invalid BIDS \(entity) label '\(label)': a label is one or more ASCII letters and digits"
        case let .noSubjectLabel(sessionID, appID):
            return "session \(sessionID) has the app id '\(appID)', which holds no ASCII letter or digit to make a BIDS subject label from"
        case let .nothingToExport(sessionID):
            return "session \(sessionID) has no gaze samples and no per-eye frame values: nothing to write as BIDS"
        case let .screenGeometryUnknown(sessionID):
            return "session \(sessionID) has gaze on the screen but no screen size in millimetres and viewing distance, "
                + "which BIDS requires for on-screen gaze"
        case let .io(action, path, reason):
            return "cannot \(action) \(path): \(reason)"
        case let .malformedDatasetFile(path, reason):
            return "cannot add to \(path): \(reason)"
        }
    }
}
