import Foundation
import GazeModel
import JSONStream
import Testing
import TestSupport

/// `gazerec start --preview` as a person sees it: the gaze point moving on the terminal while
/// recording, and the terminal restored however the recording is stopped.
@Suite("gazerec start --preview in a terminal", .serialized)
struct PreviewCommandTests {
    /// Poses held in the 20 s head-turn clip, with targets where each points.
    static let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/calibration-headturns-20s.txt").path

    @Test("the live gaze point and the recorder's state are drawn; q and Ctrl-C stop, keep the session, restore the terminal",
          .enabled(if: CalibrateCommandTests.terminalReady, "needs tmux, ../shared/fixtures and the dlib model"),
          arguments: ["q", "C-c"])
    func preview(key: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let clip = Fixtures.path("video/cap12_headturns_20s.mp4")
        let calibrated = try Binary.run(["calibrate", "--input", clip, "--script", Self.script],
                                        environment: ["GAZEREC_DATABASE": database])
        try #require(calibrated.status == 0, "\(calibrated.stderr)")
        let tmux = Tmux()
        defer { tmux.kill() }
        try tmux.start("GAZEREC_DATABASE='\(database)' '\(Binary.gazerec)' start --input '\(clip)' --preview; "
                       + "echo START-ENDED $?; stty -a | grep -o -- '-\\?icanon'; sleep 60")
        // Recording: the status line counts gaze samples and the gaze point (@) is on the screen.
        let drawing = try tmux.waitFor("gaze samples on the preview") { screen in
            guard let range = screen.range(of: "  gaze ") else { return false }
            return (Int(screen[range.upperBound...].prefix { $0.isNumber }) ?? 0) >= 20
        }
        #expect(drawing.contains(" ● REC 00:0"))
        #expect(drawing.contains("@"))
        #expect(drawing.contains("q stops"))
        try tmux.send(key)
        let after = try tmux.waitFor("START-ENDED")
        #expect(after.contains("START-ENDED 0"))
        #expect(!after.contains("● REC"))
        try tmux.expectCookedMode()
        // The session is there, closed, with its gaze samples.
        let id = try #require(after.firstMatch(of: /\n([0-9A-F-]{36})\n/)?.1)
        let show = try Binary.run(["show", String(id)], environment: ["GAZEREC_DATABASE": database])
        let samples = try #require(show.stdout.firstMatch(of: /Gaze samples +([0-9]+)/)?.1)
        #expect((Int(samples) ?? 0) >= 20)
        #expect(!show.stdout.contains("not ended"))
    }

    @Test("--preview without a terminal, or with --stream: a usage error")
    func usage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let noTerminal = try Binary.run(["start", "--input", "x.mp4", "--preview"], environment: environment)
        #expect(noTerminal.status == 64 && noTerminal.stderr.contains("--preview draws on a terminal"))
        let withStream = try Binary.run(["start", "--input", "x.mp4", "--preview", "--stream", "ndjson"], environment: environment)
        #expect(withStream.status == 64 && withStream.stderr.contains("cannot be used with --detach or --stream"))
    }
}
