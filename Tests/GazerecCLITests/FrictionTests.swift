import Foundation
import JSONStream
import SessionStore
import Testing
import TestSupport

/// Friction a new user met: short ids, the list's blend-shape column, commands on a session without gaze.
@Suite("friction")
struct FrictionTests {
    @Test("a session is named by an unambiguous id prefix, as git does; an ambiguous one lists its matches",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func idPrefixes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let first = "3BE54760-F1E8-4799-A3CB-78806270E72A", second = "3BE5FFFF-F1E8-4799-A3CB-78806270E72A"
        #expect(try Binary.run(["import", Fixtures.iosSession], environment: environment).status == 0)
        let copy = folder.path("second.json")
        try (try String(contentsOfFile: Fixtures.iosSession, encoding: .utf8)).replacingOccurrences(of: first, with: second)
            .write(toFile: copy, atomically: true, encoding: .utf8)
        #expect(try Binary.run(["import", copy], environment: environment).status == 0)

        let show = try Binary.run(["show", "3be54760"], environment: environment)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("Session        \(first)"))
        #expect(try Binary.run(["export", "3BE5FF"], environment: environment).stdoutData
                == (try Binary.run(["export", second], environment: environment)).stdoutData)
        let ambiguous = try Binary.run(["show", "3be5"], environment: environment)
        #expect(ambiguous.status == 1)
        #expect(ambiguous.stderr == "gazerec: error: the id prefix 3be5 fits several sessions (\(first), \(second)). "
                + "Give more of the id.\n")
        // Too short to be a prefix, or not hex: unknown, as before.
        #expect(try Binary.run(["show", "3BE"], environment: environment).stderr.contains("no session 3BE in"))
        // delete with a prefix prints the full id it deleted.
        let deleted = try Binary.run(["delete", "3be5ff"], environment: environment)
        #expect(deleted.status == 0 && deleted.stdout == second + "\n", "\(deleted.stderr)")
        // list: frames with blend shapes, and how many series, not their samples added up (2 × 558).
        #expect(try Binary.run(["list"], environment: environment).stdout.contains("558 × 2"))
    }

    @Test("fixations, plot and replay on a session without gaze: the same one line and exit status 1")
    func noGazeAlike() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try SessionDatabase(path: folder.path("db.sqlite"))
        let id = "0BE54760-F1E8-4799-A3CB-78806270E72A"
        let writer = try SessionWriter(
            database: database,
            header: SessionHeader(id: id, appID: "x", beginTimeSeconds: 1, endTimeSeconds: nil,
                                  deviceInfo: DeviceInfo(model: "m", screenWidth: 1920, screenHeight: 1080, systemName: "Linux",
                                                         systemVersion: "6")),
            blendShapeNames: [], recorderPID: 1)
        try writer.close(endTimeSeconds: 2, gazerecExtension: nil)
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        var messages: Set<String> = []
        for arguments in [["fixations", id], ["plot", id, "--output", folder.path("p.svg")], ["replay", id]] {
            let result = try Binary.run(arguments, environment: environment)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            messages.insert(result.stderr)
        }
        #expect(messages == ["gazerec: error: session \(id) has no gaze (scanPath): it was recorded without a calibration, "
                             + "or imported without one. Map a recorded session's stored eye features with "
                             + "'gazerec recalibrate \(id) --calibration ID'.\n"])
        #expect(!FileManager.default.fileExists(atPath: folder.path("p.svg")))
    }

    @Test("delete --all on a terminal asks with the number of sessions; 'n' says nothing was deleted and keeps them",
          .enabled(if: Tmux.available && Fixtures.available, "needs tmux and ../shared/fixtures"))
    func deleteAllAsks() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        #expect(try Binary.run(["import", Fixtures.iosSession], environment: ["GAZEREC_DATABASE": database]).status == 0)
        let tmux = Tmux()
        defer { tmux.kill() }
        try tmux.start("GAZEREC_DATABASE='\(database)' '\(Binary.gazerec)' delete --all; echo DELETE-ENDED $?; sleep 30")
        let question = try tmux.waitFor("Delete all 1 session in \(database)? [y/N]")
        #expect(question.contains("Delete all 1 session in"))
        try tmux.send("n")
        try tmux.send("Enter")
        let after = try tmux.waitFor("DELETE-ENDED")
        #expect(after.contains("gazerec: nothing deleted"))
        #expect(after.contains("DELETE-ENDED 1"))
        #expect(try Binary.run(["list", "--ids"], environment: ["GAZEREC_DATABASE": database]).stdout
                == "3BE54760-F1E8-4799-A3CB-78806270E72A\n")
    }

}
