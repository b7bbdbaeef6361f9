import Foundation
import GazeModel
import JSONStream
import Testing
import TestSupport

/// The replay as a person sees it: driven in tmux, read back with capture-pane.
@Suite("gazerec replay in a terminal", .serialized)
struct ReplayCommandTests {
    static let id = "3BE54760-F1E8-4799-A3CB-78806270E72A"

    func start(_ tmux: Tmux, database: String) throws {
        let command = "GAZEREC_DATABASE='\(database)' '\(Binary.gazerec)' replay \(Self.id) --speed 1; "
            + "echo REPLAY-ENDED $?; stty -a | grep -o -- '-\\?icanon'; sleep 60"
        try tmux.start(command)
    }

    @Test("the gaze point and numbered fixations are drawn; q and Ctrl-C restore the terminal",
          .enabled(if: Tmux.available && Fixtures.available, "needs tmux and ../shared/fixtures"),
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
        try tmux.send(key)
        // Back on the normal screen, in cooked mode.
        let after = try tmux.waitFor("REPLAY-ENDED")
        #expect(!after.contains(" replay 3BE54760"))
        try tmux.expectCookedMode()
    }

    @Test("without a terminal, replay of a session with gaze is a usage error", .enabled(if: Fixtures.available, Fixtures.missingReason))
    func notATerminal() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        #expect(try Binary.run(["import", Fixtures.iosSession], environment: environment).status == 0)
        let result = try Binary.run(["replay", Self.id], environment: environment)
        #expect(result.status == 64)
        #expect(result.stderr.contains("replay draws on a terminal"))
    }
}
