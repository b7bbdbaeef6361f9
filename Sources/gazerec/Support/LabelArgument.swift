import ArgumentParser
import GazeModel

/// Labels, names and app ids given on the command line, checked against `LabelRule` in `validate()`.
enum LabelArgument {
    /// Throws a usage error naming `what` (`--app-id`, `The label`) when `text` breaks the label rule.
    static func check(_ text: String, as what: String) throws {
        if let problem = LabelRule.problem(text) {
            throw ValidationError("\(what) \(problem).")
        }
    }
}
