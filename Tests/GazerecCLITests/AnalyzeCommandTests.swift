import Foundation
import GazeModel
import JSONStream
import SessionStore
import Testing
import TestSupport

@Suite("gazerec analyze")
struct AnalyzeCommandTests {
    static let modelPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
    static var ready: Bool { Fixtures.available && FileManager.default.fileExists(atPath: modelPath) }
    static let reason: Comment = "needs ../shared/fixtures and the dlib model (apt-get install libdlib-data)"
    static let clip = "video/cap13_blinks_20s.mp4"

    @Test("NDJSON: one object per frame with the documented fields", .enabled(if: ready, reason))
    func ndjson() throws {
        let result = try Binary.run(["analyze", "--input", Fixtures.path(Self.clip)])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 500)
        let first = try JSONValue.parse(Array(lines[0].utf8))
        #expect(first.objectKeys == ["frame", "timestamp", "trackingState", "confidence", "face", "detected", "earLeft",
                                     "earRight", "opennessLeft", "opennessRight", "blink", "pupilLeftX", "pupilLeftY",
                                     "pupilLeftU", "pupilLeftV", "pupilRightX", "pupilRightY", "pupilRightU", "pupilRightV",
                                     "yawDegrees", "pitchDegrees", "rollDegrees", "tx", "ty", "tz"])
        let last = try JSONValue.parse(Array(lines[499].utf8))
        #expect(last["frame"] == .number(499))
        #expect(last["timestamp"] == .number(19.96))
        #expect(result.stderr.contains("analysed 500 frames of cap13_blinks_20s.mp4 (400×300, 25.00 fps): face in 100.0 %"))
    }

    @Test("CSV with landmarks, and blink events", .enabled(if: ready, reason))
    func csvAndEvents() throws {
        let csv = try Binary.run(["analyze", "--input", Fixtures.path(Self.clip), "--format", "csv", "--landmarks", "--quiet"])
        #expect(csv.status == 0)
        #expect(csv.stderr.isEmpty)
        let rows = csv.stdout.split(separator: "\n")
        #expect(rows.count == 501)
        let header = rows[0].split(separator: ",")
        #expect(header.count == 25 + 136)
        #expect(header.first == "frame" && header.last == "y67")
        #expect(rows[1].split(separator: ",", omittingEmptySubsequences: false).count == header.count)
        #expect(rows[1].hasPrefix("0,0.000000,initializing,"))

        let events = try Binary.run(["analyze", "--input", Fixtures.path(Self.clip), "--events", "--format", "csv", "--quiet"])
        let eventRows = events.stdout.split(separator: "\n")
        #expect(eventRows.first == "start,end,duration,eyes,kind,minimumOpenness")
        #expect(eventRows.count >= 3)
    }

    @Test("a video with no face runs, reports 0 % face frames and exits 0", .enabled(if: ready, reason))
    func noFace() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let video = folder.path("noface.mp4")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25",
                                                             "-t", "1", "-pix_fmt", "yuv420p", video])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        let result = try Binary.run(["analyze", "--input", video])
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").count == 25)
        #expect(result.stdout.contains(#""trackingState":"missing""#))
        #expect(result.stderr.contains("face in 0.0 %"))
    }

    @Test("bad input: one clear line on stderr, exit 65 (not a video or model) or 66 (not there), nothing on stdout")
    func badInput() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let text = folder.path("notes.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        let empty = folder.path("empty.mp4")
        try Data().write(to: URL(fileURLWithPath: empty))
        let corruptModel = folder.path("model.dat")
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: corruptModel))
        var cases: [([String], Int32, String)] = [
            (["analyze", "--input", text, "--model", Self.modelPath], 65, "cannot open video \(text)"),
            (["analyze", "--input", empty, "--model", Self.modelPath], 65, "cannot open video \(empty)"),
            (["analyze", "--input", folder.path("missing.mp4"), "--model", Self.modelPath], 66, "cannot open video"),
            (["analyze", "--input", text, "--model", folder.path("none.dat")], 66, "apt-get install libdlib-data"),
        ]
        if !FileManager.default.fileExists(atPath: Self.modelPath) { cases.removeFirst(3) }
        if Fixtures.available {
            cases.append((["analyze", "--input", Fixtures.path(Self.clip), "--model", corruptModel], 65,
                          "cannot load the landmark model \(corruptModel)"))
        }
        for (arguments, status, expected) in cases {
            let result = try Binary.run(arguments)
            #expect(result.status == status, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr.hasPrefix("gazerec: error: "), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        }
        let usage = try Binary.run(["analyze"])
        #expect(usage.status == 64)
        let focal = try Binary.run(["analyze", "--input", text, "--focal-length", "-3"])
        #expect(focal.status == 64)
    }

    @Test("--time unix: the file's creation time plus each frame's time; a file that does not say is refused",
          .enabled(if: ready, reason))
    func unixTime() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let dated = folder.path("dated.mp4")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", Fixtures.path(Self.clip), "-t", "1",
                                                             "-metadata", "creation_time=2024-03-05T14:30:15Z", "-c", "copy", dated])
        try #require(made.status == 0, "\(made.stderr)")
        let relative = try Binary.run(["analyze", "--input", dated, "--format", "csv", "--quiet"])
        let unix = try Binary.run(["analyze", "--input", dated, "--format", "csv", "--quiet", "--time", "unix"])
        #expect(unix.status == 0, "\(unix.stderr)")
        func times(_ csv: String) -> [Double] { csv.split(separator: "\n").dropFirst().map { Double($0.split(separator: ",")[1])! } }
        let start = 1_709_649_015.0  // 2024-03-05T14:30:15Z
        #expect(times(relative.stdout).first == 0)
        #expect(zip(times(unix.stdout), times(relative.stdout)).allSatisfy { abs($0 - ($1 + start)) < 1e-6 })
        let undated = try Binary.run(["analyze", "--input", Fixtures.path(Self.clip), "--time", "unix"])
        #expect(undated.status == 64 && undated.stdout.isEmpty)
        #expect(undated.stderr.contains("does not say when it was recorded (no creation_time in its metadata)"))
    }

    @Test("--mirror: a mirrored clip turned back gives exactly the original's rows; left as it is, yaw turns round",
          .enabled(if: ready, reason))
    func mirrored() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The head-turn clip's first 6 s, losslessly, as it is and mirrored.
        func make(_ name: String, _ filters: [String]) throws -> String {
            let path = folder.path(name)
            let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", Fixtures.path("video/cap12_headturns_20s.mp4"),
                                                                 "-t", "6"] + filters + ["-c:v", "ffv1", "-an", path])
            try #require(made.status == 0, "\(made.stderr)")
            return path
        }
        let straight = try make("straight.mkv", [])
        let flipped = try make("flipped.mkv", ["-vf", "hflip"])
        let original = try Binary.run(["analyze", "--input", straight, "--format", "csv", "--landmarks", "--quiet"])
        let turnedBack = try Binary.run(["analyze", "--input", flipped, "--format", "csv", "--landmarks", "--quiet", "--mirror"])
        let asItIs = try Binary.run(["analyze", "--input", flipped, "--format", "csv", "--quiet"])
        #expect(original.status == 0 && turnedBack.status == 0 && asItIs.status == 0)
        #expect(original.stdout.split(separator: "\n").count == 151)
        #expect(turnedBack.stdout == original.stdout)

        func column(_ csv: String, _ name: String) -> [Double] {
            let rows = csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            guard let index = rows.first?.firstIndex(where: { $0 == name }) else { return [] }
            return rows.dropFirst().map { Double($0[index]) ?? .nan }
        }
        // Mirrored, the head turns the other way: yaw against yaw correlates negatively.
        let yaw = column(original.stdout, "yawDegrees"), mirroredYaw = column(asItIs.stdout, "yawDegrees")
        let pairs = zip(yaw, mirroredYaw).filter { $0.0.isFinite && $0.1.isFinite }
        #expect(pairs.count > 140)
        let meanA = pairs.map(\.0).reduce(0, +) / Double(pairs.count), meanB = pairs.map(\.1).reduce(0, +) / Double(pairs.count)
        let covariance = pairs.map { ($0.0 - meanA) * ($0.1 - meanB) }.reduce(0, +)
        let spread = sqrt(pairs.map { pow($0.0 - meanA, 2) }.reduce(0, +) * pairs.map { pow($0.1 - meanB, 2) }.reduce(0, +))
        #expect(covariance / spread < -0.8)

        // A recording says it turned the frames back, and why.
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let recorded = try Binary.run(["start", "--input", flipped, "--as-fast-as-possible", "--mirror", "--calibration", "none"],
                                      environment: environment)
        try #require(recorded.status == 0, "\(recorded.stderr)")
        let id = recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let session = try JSONValue.parse(Array(try Binary.run(["export", id], environment: environment).stdoutData))
        #expect(session["gazerec"]?["recorder"]?["mirrored"] == .string("option"))
    }
}
