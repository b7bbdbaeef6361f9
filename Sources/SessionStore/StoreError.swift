import JSONStream

/// Everything that can go wrong in the session store, each as data and a sentence saying what failed.
///
/// The sentences name no command or flag: a command-line interface adds what to type.
public enum StoreError: Error, CustomStringConvertible, Equatable {
    /// No session with this id is stored.
    case unknownSession(id: String, databasePath: String)
    /// An import found a session id that is already stored.
    case sessionExists(id: String, source: String)
    /// The same id occurs twice in one import.
    case duplicateInImport(id: String, source: String, firstSource: String)
    /// A JSON document is malformed or does not follow the session format.
    case invalidJSON(source: String, path: String, line: Int, column: Int, reason: String)
    /// A file could not be read or written.
    case io(action: String, path: String, reason: String)
    /// SQLite refused an operation.
    case database(action: String, path: String, reason: String)
    /// No calibration with this id is stored.
    case unknownCalibration(id: String, databasePath: String)
    /// An import found a calibration id that is already stored.
    case calibrationExists(id: String, source: String)
    /// A shortened id fits more than one session.
    case ambiguousSession(prefix: String, matches: [String])
    /// A command that only reads was pointed at a database file that does not exist.
    case noDatabase(path: String)
    /// The file was written by an older gazerec and cannot be upgraded where it lies (not writable).
    case outdatedSchema(path: String)
    /// A command that only reads was pointed at a file that is not a session database (empty, or
    /// another program's SQLite file); it was left as it was.
    case notSessionDatabase(path: String, reason: String)
    /// A shortened id fits more than one calibration.
    case ambiguousCalibration(prefix: String, matches: [String])
    /// No session and no calibration carries this app id (the label a participant was recorded under).
    case noSessionsWithAppID(label: String, databasePath: String)
    /// A session's stored rows are damaged (rows missing from their numbering, or pages SQLite
    /// reports corrupt): what is stored is not what was recorded, so it is not read as data.
    case damagedSession(id: String, databasePath: String, detail: String)

    public var description: String {
        switch self {
        case let .unknownSession(id, path):
            return "no session \(id) in \(path)."
        case let .sessionExists(id, source):
            return "cannot import \(source): session \(id) is already stored."
        case let .duplicateInImport(id, source, firstSource):
            let other = source == firstSource ? "earlier in the same file" : "in \(firstSource)"
            return "cannot import \(source): session \(id) occurs twice (also \(other)). Remove one copy."
        case let .invalidJSON(source, path, line, column, reason):
            let at = path.isEmpty ? "" : "\(path): "
            return "cannot import \(source): \(at)\(reason) (line \(line), column \(column)). Nothing was imported."
        case let .io(action, path, reason):
            return "cannot \(action) \(path): \(reason)."
        case let .database(action, path, reason):
            return "cannot \(action) in \(path): \(reason)."
        case let .unknownCalibration(id, path):
            return "no calibration \(id) in \(path)."
        case let .calibrationExists(id, source):
            return "cannot import \(source): calibration \(id) is already stored."
        case let .ambiguousSession(prefix, matches):
            return "the id prefix \(prefix) fits several sessions (\(matches.joined(separator: ", "))\(matches.count >= 5 ? ", …" : "")). "
                + "Give more of the id."
        case let .noDatabase(path):
            return "no session database at \(path)."
        case let .notSessionDatabase(path, reason):
            return "\(path) is not a session database: \(reason). It was left as it was."
        case let .ambiguousCalibration(prefix, matches):
            return "the id prefix \(prefix) fits several calibrations (\(matches.joined(separator: ", "))\(matches.count >= 5 ? ", …" : "")). "
                + "Give more of the id."
        case let .noSessionsWithAppID(label, path):
            return "no session in \(path) has the app id '\(label)', and no calibration is named so; nothing was deleted."
        case let .damagedSession(id, path, detail):
            return "session \(id) in \(path) is damaged: \(detail). Its data cannot be trusted; "
                + "restore the database from a backup copy."
        case let .outdatedSchema(path):
            return "\(path) was written by an older gazerec and cannot be upgraded here: it is not writable. "
                + "Open a writable copy once with this version (any command upgrades it), then read that."
        }
    }
}

extension StoreError {
    /// A JSON reading or writing error in the store's terms.
    public init(_ error: JSONError) {
        switch error {
        case let .invalid(source, path, line, column, reason):
            self = .invalidJSON(source: source, path: path, line: line, column: column, reason: reason)
        case let .io(action, path, reason):
            self = .io(action: action, path: path, reason: reason)
        }
    }
}
