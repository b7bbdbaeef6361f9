import Foundation
import GazeModel
import JSONStream
import Testing
import TestSupport

/// A tmux server of our own (its own socket) with one session, `Tmux.session`, for driving the
/// full-screen commands as a person does (send-keys) and reading the screen back (capture-pane).
struct Tmux {
    static let session = "gazerec"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

    let socket = "gazerec-test-\(UUID().uuidString.prefix(8))"

    /// Runs tmux with every descriptor above stderr closed: the tmux server would otherwise inherit
    /// one that the test's process launcher waits on, and the launch would not return until it exits.
    func run(_ arguments: [String]) throws -> String {
        let script = #"for fd in $(ls /proc/$$/fd); do if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi; done; exec /usr/bin/tmux "$@""#
        return try Binary.runProcess("/bin/bash", ["-c", script, "tmux", "-L", socket] + arguments).stdout
    }

    /// Starts `command` in a shell on a `columns` × `rows` terminal.
    func start(_ command: String, columns: Int = 100, rows: Int = 30) throws {
        _ = try run(["new-session", "-d", "-s", Self.session, "-x", "\(columns)", "-y", "\(rows)", command])
    }

    /// Appends everything the session's program writes to its terminal to `path` from now on, so a
    /// screen shown only for a moment can be checked whenever the poll of `screen()` missed it.
    func record(to path: String) throws {
        _ = try run(["pipe-pane", "-t", Self.session, "-o", "cat >> '\(path)'"])
    }

    /// Waits until what `record(to:)` wrote to `path` contains every one of `texts`.
    func waitForRecorded(_ texts: [String], in path: String, timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let written = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if texts.allSatisfy(written.contains) { return true }
            usleep(200_000)
        } while Date() < deadline
        return false
    }

    func send(_ key: String) throws { _ = try run(["send-keys", "-t", Self.session, key]) }

    func screen() throws -> String { try run(["capture-pane", "-t", Self.session, "-p"]) }

    func waitFor(_ text: String, timeout: Double = 30) throws -> String {
        try waitFor(text, timeout: timeout) { $0.contains(text) }
    }

    func waitFor(_ what: String, timeout: Double = 30, _ done: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if done(last) { return last }
            usleep(200_000)
        }
        Issue.record("\(what) never appeared; screen:\n\(last)")
        return last
    }

    /// After a command run as `…; echo ENDED $?; stty -a | grep -o -- '-\?icanon'`: the terminal is
    /// back in cooked (canonical) mode.
    func expectCookedMode() throws {
        let mode = try waitFor("icanon")
        #expect(mode.contains("\nicanon") || mode.hasPrefix("icanon"), "terminal left in raw mode:\n\(mode)")
        #expect(!mode.contains("-icanon"))
    }

    func kill() { _ = try? run(["kill-server"]) }
}
