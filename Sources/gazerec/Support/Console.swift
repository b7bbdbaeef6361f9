import Foundation
import GazeModel
import JSONStream

/// A usage error found while running (exit 64), for checks that `validate()` cannot make.
struct UsageError: Error {
    var message: String
}

/// Messages for humans, always on stderr; stdout carries data only.
enum Console {
    /// `gazerec: error: <message>` on stderr.
    static func error(_ message: String) {
        write("gazerec: error: \(message)\n")
    }

    /// `gazerec: <message>` on stderr.
    static func note(_ message: String) {
        write("gazerec: \(message)\n")
    }

    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Data on stdout. A stdout that cannot take it (closed, a full disk) ends the command with one
    /// line and exit 1, never a crash; a reader that went away ends it by SIGPIPE as `export` does.
    static func output(_ text: String) {
        var bytes = Array(text.utf8)
        do {
            try bytes.withUnsafeMutableBytes { try FileByteSink.standardOutput().write(UnsafeRawBufferPointer($0)) }
        } catch {
            let reason = if case JSONError.io(_, _, let reason) = error { reason } else { "\(error)" }
            self.error("cannot write to standard output (\(reason)): the output is incomplete; "
                       + "what the command stored is kept. Send stdout to a file or pipe that can take it.")
            exit(1)
        }
    }

    static var stdinIsTerminal: Bool { isatty(0) == 1 }
    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// Asks a yes/no question on the terminal; false for anything but y/yes.
    static func confirm(_ question: String) -> Bool {
        write("\(question) [y/N] ")
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
