/// What can go wrong reading or writing JSON, as data: the caller words the message for its users.
public enum JSONError: Error, CustomStringConvertible, Equatable {
    /// A document is malformed, or does not follow the schema its reader expects.
    ///
    /// `path` is the JSON path of the value (`[3].scanPath[12].x`, empty at the top level);
    /// `line` and `column` count from 1.
    case invalid(source: String, path: String, line: Int, column: Int, reason: String)
    /// A file could not be opened, read or written (`action` is a verb: read, create, write).
    case io(action: String, path: String, reason: String)

    public var description: String {
        switch self {
        case let .invalid(source, path, line, column, reason):
            let at = path.isEmpty ? "" : "\(path): "
            return "\(source): \(at)\(reason) (line \(line), column \(column))"
        case let .io(action, path, reason):
            return "cannot \(action) \(path): \(reason)"
        }
    }
}

extension JSONError {
    /// Why an import document that is an empty array is refused (sessions and calibrations alike):
    /// a file that asks to import nothing is almost always the wrong file, or one a script wrote
    /// before it had anything to put in it, and saying "imported 0" would hide that.
    /// `item` names what the array should have held (`session`, `calibration`).
    public static func emptyArrayReason(item: String) -> String {
        "it is an empty array, with no \(item) to import"
    }
}
