import Foundation
import JSONStream
import Testing
import TestSupport

/// `gazerec position`: the seating guide on real frames, as they are and changed by FFmpeg the way
/// a bad seating changes them; each gives its advice and its exit code.
@Suite("gazerec position: seating the participant", .serialized)
struct PositionCommandTests {
    static let clip = "video/cap13_blinks_20s.mp4"
    static let keys = ["t", "face", "faceWidthPixels", "eyeWidthPixels", "distanceMillimetres", "yawDegrees", "pitchDegrees",
                       "brightness", "contrast", "glare", "centred", "ok", "advice"]

    /// A copy of `fixture` made with FFmpeg's `filter` (and input options before `-i`).
    static func copy(_ fixture: String, _ filter: String, in folder: TemporaryFolder, name: String,
                     input: [String] = []) throws -> String {
        let target = folder.path(name)
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error"] + input + ["-i", Fixtures.path(fixture), "-t", "3",
                                         "-vf", filter, "-c:v", "libx264", "-crf", "10", "-pix_fmt", "yuv420p", "-an", target])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        return target
    }

    /// The JSON lines and exit status of `position --json` on `video`.
    static func position(_ video: String, _ extra: [String] = []) throws -> (lines: [JSONValue], status: Int32, stderr: String) {
        let result = try Binary.run(["position", "--json", "--input", video] + extra)
        let lines = try result.stdout.split(separator: "\n").map { try JSONValue.parse(Array($0.utf8)) }
        return (lines, result.status, result.stderr)
    }

    static func text(_ value: JSONValue?) -> String { if case .string(let text)? = value { text } else { "" } }
    static func number(_ value: JSONValue?) -> Double? { if case .number(let n)? = value { n } else { nil } }

    @Test("the clip as it is: every key on every line, in range, exit 0 within --duration once held",
          .enabled(if: CalibrateCommandTests.ready, CalibrateCommandTests.reason))
    func asItIs() throws {
        let (lines, status, stderr) = try Self.position(Fixtures.path(Self.clip), ["--duration", "10"])
        #expect(status == 0, "\(stderr)")
        // Held for the default 2 s: two lines in range, then it stops (not at the clip's end).
        #expect(lines.count == 2)
        for line in lines {
            guard case .object(let members) = line else { Issue.record("not an object: \(line)"); continue }
            #expect(members.map(\.0) == Self.keys)
            #expect(line["ok"] == .bool(true) && line["face"] == .bool(true) && line["centred"] == .bool(true))
            #expect(Self.text(line["advice"]).isEmpty)
            #expect((15...19).contains(Self.number(line["eyeWidthPixels"]) ?? 0))
        }
        #expect(lines.map { Self.number($0["t"]) } == [1, 2])
        #expect(stderr.contains("seated: everything stayed in range for 2.0 s"))
    }

    @Test("downscaled into a larger black frame (too far): move closer, with the eyes' width; exit 1",
          .enabled(if: CalibrateCommandTests.ready, CalibrateCommandTests.reason))
    func tooFar() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let far = try Self.copy(Self.clip, "scale=220:166,pad=400:300:90:67:black", in: folder, name: "far.mp4")
        let (lines, status, stderr) = try Self.position(far)
        #expect(status == 1)
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0["ok"] == .bool(false) && Self.text($0["advice"]).hasPrefix("move closer: the eyes are ") })
        #expect(lines.allSatisfy { (Self.number($0["eyeWidthPixels"]) ?? 99) < 11 })
        #expect(stderr.contains("not seated after 3.0 s: move closer"))
        // With a smaller minimum, the distance (about 1.1 m) is what is out of range; with a longer range too, they pass.
        let smaller = try Self.position(far, ["--min-eye-pixels", "8"])
        #expect(smaller.status == 1 && smaller.lines.allSatisfy { Self.text($0["advice"]).hasPrefix("move closer: the head is ") })
        #expect(try Self.position(far, ["--min-eye-pixels", "8", "--distance-range", "400-1500"]).status == 0)
    }

    @Test("darkened, and lit from behind: the light advice; exit 1",
          .enabled(if: CalibrateCommandTests.ready, CalibrateCommandTests.reason),
          arguments: [("lutyuv=y=val*0.3,noise=alls=4:allf=t", "turn the light towards you: the face is dark"),
                      ("geq=lum='clip(0.3*p(X,Y)+255*min(1,pow(hypot(X-W/2,Y-H/2)/(0.5*W),2)),0,255)':cb=128:cr=128",
                       "turn the light towards you: the light is behind you")])
    func light(filter: String, advice: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let changed = try Self.copy(Self.clip, filter, in: folder, name: "light.mp4")
        let (lines, status, stderr) = try Self.position(changed, ["--duration", "3"])
        #expect(status == 1, "\(stderr)")
        #expect(!lines.isEmpty && lines.allSatisfy { $0["face"] == .bool(true) && Self.text($0["advice"]).hasPrefix(advice) },
                "\(lines.map { Self.text($0["advice"]) })")
    }

    @Test("turned away (the head-turn clip's look up held): face the screen; exit 1",
          .enabled(if: CalibrateCommandTests.ready, CalibrateCommandTests.reason))
    func turnedAway() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Frames 230–248 (9.2–9.9 s) hold the clip's farthest pose, the head tilted up; looped for 3 s.
        let up = try Self.copy("video/cap12_headturns_20s.mp4", "loop=loop=3:size=19:start=0,setpts=N/25/TB", in: folder,
                               name: "up.mp4", input: ["-ss", "9.2", "-t", "0.76"])
        let (lines, status, _) = try Self.position(up, ["--duration", "3"])
        #expect(status == 1)
        #expect(!lines.isEmpty && lines.allSatisfy { Self.text($0["advice"]).hasPrefix("face the screen: lower your chin; the head is tilted") },
                "\(lines.map { Self.text($0["advice"]) })")
        #expect(lines.allSatisfy { (Self.number($0["pitchDegrees"]) ?? 0) > 25 })
    }

    @Test("cropped so the face leaves the region head turns need: centred false, centre the face; exit 1",
          .enabled(if: CalibrateCommandTests.ready, CalibrateCommandTests.reason))
    func offCentre() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The face spans about x 150–245 of 400: cropping from x 140 leaves it 10 px from the left edge.
        let cropped = try Self.copy(Self.clip, "crop=260:300:140:0", in: folder, name: "cropped.mp4")
        let (lines, status, _) = try Self.position(cropped, ["--duration", "3"])
        #expect(status == 1)
        #expect(!lines.isEmpty && lines.allSatisfy { $0["face"] == .bool(true) && $0["centred"] == .bool(false) })
        #expect(lines.allSatisfy { Self.text($0["advice"]) == "centre the face: move to your left; it is too near the picture's left edge for head turns" },
                "\(lines.map { Self.text($0["advice"]) })")
    }

    @Test("no face at all: advice, not an error; nulls for the figures; exit 1 when the video ends",
          .enabled(if: CalibrateCommandTests.ready, CalibrateCommandTests.reason))
    func noFace() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let empty = folder.path("empty.mp4")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=gray:size=400x300:rate=25",
                                                            "-t", "3", "-pix_fmt", "yuv420p", empty])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        let (lines, status, stderr) = try Self.position(empty)
        #expect(status == 1)
        #expect(!stderr.contains("error"))
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0["face"] == .bool(false) && $0["eyeWidthPixels"] == .null && $0["centred"] == .bool(false) })
        #expect(lines.allSatisfy { Self.text($0["advice"]).hasPrefix("no face found") })
        #expect(stderr.contains("not seated after 3.0 s: no face found"))
    }

    @Test("start and calibrate check their first second: a warning once when too far, kept in the session's facts; none as it is",
          .enabled(if: CalibrateCommandTests.ready, CalibrateCommandTests.reason))
    func firstSecond() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let far = try Self.copy(Self.clip, "scale=220:166,pad=400:300:90:67:black", in: folder, name: "far.mp4")
        let recorded = try Binary.run(["start", "--input", far, "--as-fast-as-possible", "--calibration", "none", "--duration", "3"],
                                      environment: environment)
        try #require(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stderr.components(separatedBy: "warning: seating: move closer: the eyes are ").count == 2, "\(recorded.stderr)")
        let id = recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let session = try JSONValue.parse(Array(try Binary.run(["export", id], environment: environment).stdoutData))
        let advice = Self.text(session["gazerec"]?["recorder"]?["seatingAdvice"])
        #expect(advice.hasPrefix("move closer: the eyes are "))

        let asItIs = try Binary.run(["start", "--input", Fixtures.path(Self.clip), "--as-fast-as-possible", "--calibration", "none",
                                     "--duration", "3"], environment: environment)
        try #require(asItIs.status == 0, "\(asItIs.stderr)")
        #expect(!asItIs.stderr.contains("seating"))
        let plain = try JSONValue.parse(Array(try Binary.run(["export", asItIs.stdout.trimmingCharacters(in: .whitespacesAndNewlines)],
                                                             environment: environment).stdoutData))
        #expect(plain["gazerec"]?["recorder"]?["seatingAdvice"] == nil && plain["gazerec"]?["recorder"] != nil)

        // A calibration warns at once, whatever comes after (here the 3 s copy ends before its targets do).
        let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/calibration-headturns-20s.txt").path
        let farTurns = try Self.copy("video/cap12_headturns_20s.mp4", "scale=220:166,pad=400:300:90:67:black", in: folder,
                                     name: "far-turns.mp4")
        let calibrated = try Binary.run(["calibrate", "--input", farTurns, "--script", script], environment: environment)
        #expect(calibrated.stderr.components(separatedBy: "warning: seating: move closer: the eyes are ").count == 2,
                "\(calibrated.stderr)")
    }

    @Test("on a terminal: the picture with the face and its room, the figures, the advice; q stops (exit 1), a held seating ends it (exit 0); the terminal is restored",
          .enabled(if: CalibrateCommandTests.terminalReady, "needs tmux, ../shared/fixtures and the dlib model"),
          arguments: ["q", "held"])
    func terminal(ending: String) throws {
        let tmux = Tmux()
        defer { tmux.kill() }
        let hold = ending == "q" ? "60" : "2"
        try tmux.start("'\(Binary.gazerec)' position --input '\(Fixtures.path(Self.clip))' --hold \(hold); "
                       + "echo POSITION-ENDED $?; stty -a | grep -o -- '-\\?icanon'; sleep 60")
        let drawn = try tmux.waitFor("ok: in range")
        #expect(drawn.contains("+---") && drawn.contains("#") && drawn.contains(". the room it needs for head turns"))
        #expect(drawn.contains("eyes 1") && drawn.contains(" px  distance ") && drawn.contains("centred yes"))
        if ending == "q" { try tmux.send("q") }
        let after = try tmux.waitFor("POSITION-ENDED")
        #expect(after.contains(ending == "q" ? "POSITION-ENDED 1" : "POSITION-ENDED 0"))
        #expect(ending == "q" || after.contains("seated: everything stayed in range for 2.0 s"))
        #expect(!after.contains("q stops"))
        try tmux.expectCookedMode()
    }

    @Test("bad ranges are usage errors")
    func usage() throws {
        for (arguments, message) in [(["--hold=-1"], "--hold must be zero or a positive"),
                                     (["--duration", "0"], "--duration must be a positive"),
                                     (["--brightness-range", "0.2-1.5"], "--brightness-range must lie within 0-1"),
                                     (["--distance-range", "900-400"], "distance-range")] {
            let result = try Binary.run(["position", "--input", "x.mp4"] + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
    }
}
