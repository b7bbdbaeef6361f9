import Foundation
import GazeCapture
import JSONStream
import Testing
import TestSupport

/// `gazerec stimulus` on the defects a trial found, the Pro Lab metrics and the data quality beside
/// every result; sessions as `StimulusCommandTests` makes them (a 320×180 video of a moving box shown
/// at 100,50 in 640×360 points from marker "video", on a 1280×800-point screen).
@Suite("gazerec stimulus: trial fixes, metrics and data quality", .serialized)
struct StimulusTrialTests {
    static let ready = StimulusCommandTests.ready
    static let reason = StimulusCommandTests.reason
    static let rect = StimulusCommandTests.rect

    /// Imports a session whose gaze rests on stimulus pixel (40, 30) for the video's 6 s, with a
    /// calibration (`accuracyDegrees`, and a viewing geometry when `geometry`) and the frames from
    /// `missingFrom` seconds of the video on without a face.
    static func importSession(_ workspace: Workspace, id: String, appID: String = "t", accuracyDegrees: Double? = nil,
                              geometry: Bool = false, missingFrom: Double = 99) throws {
        let begin = StimulusCommandTests.begin, start = StimulusCommandTests.videoStart
        let samples = (0..<480).map { index -> String in
            let time = begin + Double(index) / 60, t = time - start
            let state = t >= missingFrom && t < 6 ? #","trackingState":"notTracking""# : ""
            let (x, y) = t >= 0 && t < 6 ? (100 + 2 * 40.0, 50 + 2 * 30.0) : (5.0, 5.0)
            return #"{"x":\#(x),"y":\#(y),"timestamp":\#(time),"orientation":3\#(state)}"#
        }
        var calibration = #""id":"c","createdAt":\#(begin - 100),"points":9"#
        if let accuracyDegrees { calibration += #","accuracyDegrees":\#(accuracyDegrees),"accuracyPoints":\#(accuracyDegrees * 40)"# }
        if geometry { calibration += #","viewingGeometry":{"screenWidthMillimetres":300,"screenHeightMillimetres":187.5,"distanceMillimetres":600}"# }
        let document = """
            {"id":"\(id)","appID":"\(appID)","beginTime":\(begin),"endTime":\(begin + 8),
             "deviceInfo":{"model":"m","screenSize":[1280,800],"systemName":"Linux","systemVersion":"6"},
             "scanPath":[\(samples.joined(separator: ","))], "blendShapes":{},
             "gazerec":{"calibration":{\(calibration)}, "markers":[{"timestamp":\(start),"label":"video"}]}}
            """
        let file = workspace.folder.path("\(id).json")
        try document.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try workspace.run(["import", file])
        try #require(imported.status == 0, "\(imported.stderr)")
    }

    static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    @Test("when every session fails, the error gives each one's reason", .enabled(if: ready, reason))
    func everySessionFailing() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let a = "5B000000-0000-0000-0000-000000000001", b = "5B000000-0000-0000-0000-000000000002"
        let video = try StimulusCommandTests.prepare(workspace, id: a, label: "trial")
        _ = try StimulusCommandTests.prepare(workspace, id: b, label: "other")
        let result = try workspace.run(["stimulus", "timeline", a, b, "--stimulus", video, "--rect", Self.rect, "--start", "video"])
        StimulusCommandTests.oneLine(result, 1, "none of the 2 sessions could be analysed against the stimulus: "
            + "session \(a) cannot be analysed: it has no marker \"video\" (its markers: trial); "
            + "session \(b) cannot be analysed: it has no marker \"video\" (its markers: other)")
    }

    @Test("a rectangle partly off the recorded screen is warned about, wholly off refused; --rect 0,0,0,0 says why",
          .enabled(if: ready, reason))
    func rectangleOffTheScreen() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let id = "5B000000-0000-0000-0000-000000000003"
        let video = try StimulusCommandTests.prepare(workspace, id: id)
        func run(_ rect: String) throws -> CommandResult {
            try workspace.run(["stimulus", "timeline", id, "--stimulus", video, "--rect", rect, "--start", "video"])
        }
        // 280 of its 640 points' width on the 1280-point screen: 44 %.
        let partly = try run("1000,50,640,360")
        #expect(partly.status == 0, "\(partly.stderr)")
        #expect(partly.stderr.contains("warning: session \(id): only 44 % of the stimulus's rectangle lies on its recorded screen of 1280×800 points"),
                "\(partly.stderr)")
        StimulusCommandTests.oneLine(try run("2000,50,640,360"), 1,
                                     "session \(id) cannot be analysed: the stimulus's rectangle 2000,50,640,360 lies wholly off its recorded screen of 1280×800 points")
        StimulusCommandTests.oneLine(try run("0,0,0,0"), 64, "--rect 0,0,0,0 has no area: its width and height (the third and fourth numbers) must be positive")
    }

    @Test("an area partly outside the stimulus or its duration is warned about, one wholly outside refused",
          .enabled(if: ready, reason))
    func areasOutsideTheStimulus() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let id = "5B000000-0000-0000-0000-000000000004"
        let video = try StimulusCommandTests.prepare(workspace, id: id)
        func run(_ text: String) throws -> CommandResult {
            try workspace.run(["stimulus", "aoi", id, "--stimulus", video, "--rect", Self.rect, "--start", "video",
                               "--aois", try StimulusCommandTests.aois(workspace, text)])
        }
        let partly = try run(#"[{"name": "edge", "rect": [300, 0, 40, 40]}, {"name": "late", "keyframes": [{"t": 4, "rect": [0, 0, 9, 9]}, {"t": 9, "rect": [0, 0, 9, 9]}]}]"#)
        #expect(partly.status == 0, "\(partly.stderr)")
        #expect(partly.stderr.contains("warning: area \"edge\" lies 50 % outside the stimulus's 320×180 pixels"), "\(partly.stderr)")
        #expect(partly.stderr.contains("warning: area \"late\" is keyframed from 4 s to 9 s but the stimulus lasts 6 s"), "\(partly.stderr)")
        StimulusCommandTests.oneLine(try run(#"[{"name": "away", "rect": [400, 0, 40, 40]}]"#), 65,
                                     "area \"away\" lies wholly outside the stimulus's 320×180 pixels")
        StimulusCommandTests.oneLine(try run(#"[{"name": "two", "rect": [0, 0, 4, 4], "polygon": [[0, 0], [1, 0], [0, 1]]}]"#), 65,
                                     "aois-")
        let twoShapes = try run(#"[{"name": "two", "rect": [0, 0, 4, 4], "polygon": [[0, 0], [1, 0], [0, 1]]}]"#)
        #expect(twoShapes.stderr.contains(".json: area \"two\": it has 2 shapes (\"rect\", \"polygon\"): give one"), "\(twoShapes.stderr)")
    }

    @Test("highlights --render replaces stale clips as a whole and says why there is no highlight; an empty table says why",
          .enabled(if: ready, reason))
    func renderedHighlights() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let id = "5B000000-0000-0000-0000-000000000005"
        let video = try StimulusCommandTests.prepare(workspace, id: id)
        let folder = workspace.folder.path("clips")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for stale in ["highlight-1.mp4", "highlight-7.mp4"] { try "old".write(toFile: folder + "/" + stale, atomically: true, encoding: .utf8) }
        func run(_ extra: [String]) throws -> CommandResult {
            try workspace.run(["stimulus", "highlights", id, "--stimulus", video, "--rect", Self.rect, "--start", "video", "--render", folder] + extra)
        }
        let happy = try run([])
        try #require(happy.status == 0, "\(happy.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["highlight-1.mp4"])
        #expect(try ColourVideoReader(path: folder + "/highlight-1.mp4").layout.width > 0)
        // Nothing of the work is left beside the folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.folder.url.path).filter { $0.hasPrefix("clips") } == ["clips"])
        // Nobody is sad: no highlight, the stale clip goes, and stderr says why.
        let sad = try run(["--expression", "sad"])
        #expect(sad.status == 0, "\(sad.stderr)")
        #expect(sad.stdout == "rank,startSeconds,endSeconds,participants,expressionProbability,dispersionPixels,cropX,cropY,cropWidth,cropHeight\n")
        #expect(sad.stderr.contains("no highlight: the one participant with expression data was never in a run of sad"), "\(sad.stderr)")
        #expect(sad.stderr.contains("\(folder) holds no clip: there is no highlight"), "\(sad.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        // A folder holding something else is not emptied.
        try "notes".write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
        StimulusCommandTests.oneLine(try run([]), 1, "cannot write the video \(folder): it holds notes.txt, not only highlight clips")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["notes.txt"])
    }

    @Test("an odd-sized .mp4 points to .mkv; a file where a folder is expected is called a file; the assumed scale is said",
          .enabled(if: ready, reason))
    func videoOutputsAndScale() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let id = "5B000000-0000-0000-0000-000000000006"
        _ = try StimulusCommandTests.prepare(workspace, id: id)
        let odd = workspace.folder.path("odd.mkv")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=gray:s=322x182:r=30:d=2,crop=321:181:0:0,format=yuv444p",
                                                                "-c:v", "ffv1", odd])
        try #require(made.status == 0, "\(made.stderr)")
        func overlay(_ output: String, stimulus: String = odd) throws -> CommandResult {
            try workspace.run(["stimulus", "overlay", id, "--stimulus", stimulus, "--rect", Self.rect, "--start", "video", "--output", output])
        }
        let mp4 = workspace.folder.path("odd.mp4")
        StimulusCommandTests.oneLine(try overlay(mp4), 1, "cannot write the video \(mp4): H.264 in .mp4 needs an even width and height "
            + "and this video is 321×181 pixels: write it as .mkv (FFV1, lossless) instead")
        #expect(!FileManager.default.fileExists(atPath: mp4))
        let taken = workspace.folder.path("taken")
        try "x".write(toFile: taken, atomically: true, encoding: .utf8)
        StimulusCommandTests.oneLine(try overlay(taken + "/overlay.mkv"), 1, "cannot write the video \(taken)/overlay.mkv: \(taken) is a file, not a folder")
        let written = try overlay(workspace.folder.path("odd-overlay.mkv"))
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stderr.contains("warning: session \(id): its calibration had no screen size or viewing distance, so 40 points per degree were assumed"),
                "\(written.stderr)")
    }

    @Test("each recording's data quality is beside its rows; thresholds leave recordings out, named on stderr and in JSON",
          .enabled(if: ready, reason))
    func dataQuality() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let good = "5B000000-0000-0000-0000-000000000007", patchy = "5B000000-0000-0000-0000-000000000008"
        let unknown = "5B000000-0000-0000-0000-000000000009"
        let video = try StimulusCommandTests.prepare(workspace, id: "5B000000-0000-0000-0000-00000000000A")
        try Self.importSession(workspace, id: good, accuracyDegrees: 1.2, geometry: true)
        try Self.importSession(workspace, id: patchy, accuracyDegrees: 0.8, geometry: true, missingFrom: 4.5)
        try Self.importSession(workspace, id: unknown)
        let areas = try StimulusCommandTests.aois(workspace, #"[{"name": "logo", "rect": [20, 10, 40, 40]}]"#)
        func run(_ extra: [String]) throws -> CommandResult {
            try workspace.run(["stimulus", "aoi", good, patchy, unknown, "--stimulus", video, "--rect", Self.rect, "--start", "video",
                               "--aois", areas] + extra)
        }
        let all = try run([])
        try #require(all.status == 0, "\(all.stderr)")
        let rows = StimulusCommandTests.rows(all.stdout)
        let byID = Dictionary(uniqueKeysWithValues: rows.map { ($0["session"]!, $0) })
        #expect(byID[good]?["validShare"] == "1.0000" && byID[good]?["accuracy"] == "1.200" && byID[good]?["accuracyUnit"] == "degrees", "\(all.stdout)")
        #expect(byID[good]?["precisionUnit"] == "degrees" && byID[good]?["group"] == "t", "\(all.stdout)")
        // 1.5 of the 6 s without a face: 90 of 360 frames.
        #expect(byID[patchy]?["validShare"] == "0.7500", "\(all.stdout)")
        #expect(byID[unknown]?["accuracy"] == "" && byID[unknown]?["precisionUnit"] == "points", "\(all.stdout)")

        let strict = try run(["--exclude-valid-below", "0.9", "--exclude-accuracy-above", "1.3", "--format", "json"])
        try #require(strict.status == 0, "\(strict.stderr)")
        let document = try JSONValue.parse(Array(strict.stdout.utf8))
        func sessions(_ key: String) -> [String] {
            (document[key]?.arrayValue ?? []).compactMap { row -> String? in if case .string(let s)? = row["session"] { s } else { nil } }
        }
        #expect(sessions("rows") == [good] && sessions("excluded") == [patchy, unknown], "\(strict.stdout)")
        #expect(strict.stderr.contains("warning: session \(patchy) left out: its share of valid samples 0.750 is below 0.9"), "\(strict.stderr)")
        #expect(strict.stderr.contains("warning: session \(unknown) left out: its calibration's accuracy in degrees is unknown"), "\(strict.stderr)")
        // Every recording left out: the command fails, giving each one's reason.
        let none = try run(["--exclude-accuracy-above", "0.5"])
        StimulusCommandTests.oneLine(none, 1, "none of the 3 sessions could be analysed against the stimulus: "
            + "session \(good) left out: its calibration's accuracy 1.20° is worse than 0.5°; session \(patchy) left out: ")
        let lenient = try run(["--exclude-valid-below", "0.5", "--exclude-accuracy-above", "1.5"])
        #expect(lenient.status == 0 && Set(StimulusCommandTests.rows(lenient.stdout).map { $0["session"]! }) == [good, patchy], "\(lenient.stdout)")
    }

    @Test("the participants file groups recordings; group rows are their means; transitions come in long form",
          .enabled(if: ready, reason))
    func groupsAndTransitions() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let a = "5B000000-0000-0000-0000-00000000000B", b = "5B000000-0000-0000-0000-00000000000C"
        let video = try StimulusCommandTests.prepare(workspace, id: a)
        try Self.importSession(workspace, id: b, appID: "lab-2")
        let areas = try StimulusCommandTests.aois(workspace, #"[{"name": "logo", "rect": [20, 10, 40, 40]}, {"name": "box", "keyframes": [{"t": 0, "rect": [20, 70, 40, 40]}, {"t": 6, "rect": [260, 70, 40, 40]}]}]"#)
        func run(_ extra: [String]) throws -> CommandResult {
            try workspace.run(["stimulus", "aoi", a, b, "--stimulus", video, "--rect", Self.rect, "--start", "video", "--aois", areas] + extra)
        }
        // By app id: "t" and "lab-2".
        let byApp = try run(["--table", "groups"])
        try #require(byApp.status == 0, "\(byApp.stderr)")
        let groups = StimulusCommandTests.rows(byApp.stdout)
        #expect(groups.map { $0["group"]! + "/" + $0["aoi"]! } == ["t/logo", "t/box", "lab-2/logo", "lab-2/box"], "\(byApp.stdout)")
        // b rests on the logo the whole 6 s: one fixation from 0 s.
        let labLogo = groups[2]
        #expect(labLogo["participants"] == "1" && labLogo["fixationCount"] == "1.00" && labLogo["timeToFirstFixationSeconds"] == "0.000", "\(byApp.stdout)")
        let file = workspace.folder.path("participants.csv")
        try "session,group\n\(a.lowercased()),control\n\(b),control\n".write(toFile: file, atomically: true, encoding: .utf8)
        let byFile = StimulusCommandTests.rows(try run(["--table", "groups", "--participants", file]).stdout)
        #expect(byFile.map { $0["group"]! } == ["control", "control"] && byFile.first?["participants"] == "2", "\(byFile)")
        let transitions = try run(["--table", "transitions"])
        #expect(transitions.stdout.hasPrefix("session,group,from,to,count\n"), "\(transitions.stdout)")
        #expect(StimulusCommandTests.rows(transitions.stdout).count == 4, "\(transitions.stdout)")
        StimulusCommandTests.oneLine(try run(["--participants", workspace.folder.path("none.csv")]), 66, "cannot read the participants file")
    }
}

extension StimulusTrialTests {
    @Test("the overlay draws a legend, a time readout and the keyframed areas where they are",
          .enabled(if: ready, reason))
    func overlayForAResearcher() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let id = "5B000000-0000-0000-0000-00000000000D"
        let video = try StimulusCommandTests.prepare(workspace, id: id)
        let areas = try StimulusCommandTests.aois(workspace, #"[{"name": "box", "keyframes": [{"t": 0, "rect": [20, 70, 40, 40]}, {"t": 6, "rect": [260, 70, 40, 40]}]}]"#)
        let output = workspace.folder.path("annotated.mkv")
        let result = try workspace.run(["stimulus", "overlay", id, "--stimulus", video, "--rect", Self.rect, "--start", "video",
                                        "--aois", areas, "--output", output])
        try #require(result.status == 0, "\(result.stderr)")
        let original = try ColourVideoReader(path: video), drawn = try ColourVideoReader(path: output)
        var stimulusFrame: [UInt8] = [], overlayFrame: [UInt8] = [], previousReadout: [UInt8] = []
        var frames = 0
        while let t = try original.read(into: &stimulusFrame), try drawn.read(into: &overlayFrame) != nil {
            frames += 1
            guard frames % 30 == 15 else { continue }
            // The box's outline, white, where the keyframes have it at t: its top edge at y 70 (half a second in: x 40…80).
            let left = StimulusCommandTests.boxX(t)
            let edge = (Int(left) + 8...Int(left) + 32).map { Int(overlayFrame[70 * 320 + $0]) }
            #expect(edge.allSatisfy { $0 >= 220 }, "frame at \(t) s: \(edge)")
            // The legend's swatch: the first participant's orange (BT.601 limited luma 155 of RGB 230,159,0).
            #expect(abs(Int(overlayFrame[4 * 320 + 4]) - 155) <= 2, "frame at \(t) s")
            // The readout changes every half second shown.
            let readout = (169..<180).flatMap { y in Array(overlayFrame[(y * 320)..<(y * 320 + 58)]) }
            #expect(readout != previousReadout, "frame at \(t) s")
            previousReadout = readout
        }
        #expect(frames == 180)
    }
}
