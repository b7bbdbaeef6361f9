import Foundation
import Testing
import TestSupport

/// The replay as a person sees it: driven in tmux, read back with capture-pane.
@Suite("gazerec replay in a terminal", .serialized)
struct ReplayCommandTests {
    static var tmuxAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }
    static let id = "3BE54760-F1E8-4799-A3CB-78806270E72A"

    /// A tmux server of our own (its own socket), a session running `command`, torn down after.
    struct Tmux {
        let socket = "gazerec-test-\(UUID().uuidString.prefix(8))"
        /// Runs tmux with every descriptor above stderr closed: the tmux server would otherwise inherit
        /// one that the test's process launcher waits on, and the launch would not return until it exits.
        func run(_ arguments: [String]) throws -> String {
            let script = #"for fd in $(ls /proc/$$/fd); do if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi; done; exec /usr/bin/tmux "$@""#
            return try Binary.runProcess("/bin/bash", ["-c", script, "tmux", "-L", socket] + arguments).stdout
        }
        func screen() throws -> String { try run(["capture-pane", "-t", "replay", "-p"]) }
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
        func kill() { _ = try? run(["kill-server"]) }
    }

    func start(_ tmux: Tmux, database: String) throws {
        let command = "GAZEREC_DATABASE='\(database)' '\(Binary.gazerec)' replay \(Self.id) --speed 1; "
            + "echo REPLAY-ENDED $?; stty -a | grep -o -- '-\\?icanon'; sleep 60"
        _ = try tmux.run(["new-session", "-d", "-s", "replay", "-x", "100", "-y", "30", command])
    }

    @Test("the gaze point and numbered fixations are drawn; q and Ctrl-C restore the terminal",
          .enabled(if: tmuxAvailable && Fixtures.available, "needs tmux and ../shared/fixtures"),
          arguments: ["q", "C-c"])
    func replay(key: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        #expect(try Binary.run(["import", Fixtures.iosSession], environment: ["GAZEREC_DATABASE": database]).status == 0)
        let tmux = Tmux()
        defer { tmux.kill() }
        try start(tmux, database: database)
        // Playing: the status line, the gaze point, and (after ~1 s of session time) numbered fixations.
        let playing = try tmux.waitFor("three fixations") { screen in
            guard let range = screen.range(of: "fixations ") else { return false }
            return Int(screen[range.upperBound...].prefix { $0.isNumber }).map { $0 >= 3 } ?? false
        }
        #expect(playing.contains(" replay 3BE54760"))
        #expect(playing.contains("@"))
        #expect(playing.contains("1") && playing.contains("2"))
        _ = try tmux.run(["send-keys", "-t", "replay", key])
        // Back on the normal screen, in cooked mode.
        let after = try tmux.waitFor("REPLAY-ENDED")
        #expect(!after.contains(" replay 3BE54760"))
        let mode = try tmux.waitFor("icanon")
        #expect(mode.contains("\nicanon") || mode.hasPrefix("icanon"), "terminal left in raw mode:\n\(mode)")
        #expect(!mode.contains("-icanon"))
    }

    @Test("without a terminal, replay is a usage error")
    func notATerminal() throws {
        let result = try Binary.run(["replay", Self.id])
        #expect(result.status == 64)
        #expect(result.stderr.contains("replay draws on a terminal"))
    }
}
