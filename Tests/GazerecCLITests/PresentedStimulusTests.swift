import Foundation
import GazeModel
import JSONStream
import Testing
import TestSupport

/// `gazerec stimulus` on sessions that presented the stimulus themselves: the shared clip recorded
/// (calibrated by the shared head-turn script), given the hand-made presentations of
/// `StudyPresentations` through an import (the stimulus shown, a blank, the stimulus again paused,
/// sought back, stalled and cut short), then analysed with neither --rect nor --start.
@Suite("gazerec stimulus from presentations", .serialized)
struct PresentedStimulusTests {
    static let model = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
    static var ready: Bool {
        Fixtures.available && FileManager.default.fileExists(atPath: model) && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
    }
    static let reason: Comment = "needs ../shared/fixtures, the dlib model (libdlib-data) and ffmpeg"

    static func number(_ value: JSONValue?) -> Double? { if case .number(let n)? = value { n } else { nil } }

    /// A recorded session with the study's presentations of a 640×360 stimulus video: the
    /// workspace, the session id, its begin time, its gaze samples with a face (Unix seconds) and
    /// a renamed copy of the stimulus.
    static func prepare() throws -> (workspace: Workspace, id: String, begin: Double, gaze: [Double], stimulus: String) {
        let workspace = try Workspace()
        let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/calibration-headturns-20s.txt").path
        let calibrated = try workspace.run(["calibrate", "--input", Fixtures.path("video/cap12_headturns_20s.mp4"), "--script", script])
        try #require(calibrated.status == 0, "\(calibrated.stderr)")
        let recorded = try workspace.run(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--as-fast-as-possible"])
        try #require(recorded.status == 0, "\(recorded.stderr)")
        let id = recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let video = workspace.folder.path("clip.mkv")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=640x360:r=30:d=6", "-c:v", "ffv1", video])
        try #require(made.status == 0, "\(made.stderr)")
        // The hash by coreutils, not by gazerec.
        let hashed = try Binary.runProcess("/usr/bin/sha256sum", [video])
        let sha256 = String(hashed.stdout.prefix(64))
        let size = try #require(try FileManager.default.attributesOfItem(atPath: video)[.size] as? Int)

        let exported = try workspace.run(["export", id])
        try #require(exported.status == 0, "\(exported.stderr)")
        guard case .object(var members) = try JSONValue.parse(Array(exported.stdoutData)),
              let begin = number(members.first { $0.0 == "beginTime" }?.1),
              let at = members.firstIndex(where: { $0.0 == "gazerec" }), case .object(var gazerec) = members[at].1 else {
            Issue.record("not a session with a gazerec object")
            throw CancellationError()
        }
        let presentations = StudyPresentations.presentations(begin: begin, fileName: "clip.mkv", byteSize: size, sha256: sha256)
        gazerec.append(("presentations", .array(presentations.map(Self.json))))
        members[at].1 = .object(gazerec)
        let gaze = (members.first { $0.0 == "scanPath" }?.1.arrayValue ?? [])
            .filter { $0["trackingState"] != .string("notTracking") }.compactMap { number($0["timestamp"]) }
        let document = workspace.folder.path("presented.json")
        try Data(JSONValue.object(members).compactText.utf8).write(to: URL(fileURLWithPath: document))
        let deleted = try workspace.run(["delete", id, "--yes"])
        try #require(deleted.status == 0, "\(deleted.stderr)")
        let imported = try workspace.run(["import", document])
        try #require(imported.status == 0, "\(imported.stderr)")
        // The round trip gives the presentations back as given, in camelCase and snake_case documents alike.
        let given = JSONValue.array(presentations.map(Self.json))
        for style in [[], ["--snake-case"]] {
            let again = try workspace.run(["export", id] + style)
            let member = try JSONValue.parse(Array(again.stdoutData))["gazerec"]?["presentations"]
            #expect(member?.isEquivalent(to: given) == true, "\(style)")
        }
        let renamed = workspace.folder.path("renamed copy.mkv")
        try FileManager.default.copyItem(atPath: video, toPath: renamed)
        return (workspace, id, begin, gaze, renamed)
    }

    /// A presentation as docs/ExportFormat.md spells it (written here, not by gazerec's codec).
    static func json(_ p: Presentation) -> JSONValue {
        var members: [(String, JSONValue)] = [("index", .number(Double(p.index))), ("label", .string(p.label)), ("kind", .string(p.kind.rawValue))]
        if let name = p.fileName, let size = p.byteSize, let hash = p.sha256, let rect = p.rect {
            members += [("fileName", .string(name)), ("byteSize", .number(Double(size))), ("sha256", .string(hash)),
                        ("frameRate", .number(30)), ("widthPixels", .number(640)), ("heightPixels", .number(360)),
                        ("rect", .object([("x", .number(rect.x)), ("y", .number(rect.y)), ("width", .number(rect.width)), ("height", .number(rect.height))]))]
        }
        members += [("durationSeconds", .number(p.durationSeconds!)), ("onset", .number(p.onsetSeconds)), ("offset", .number(p.offsetSeconds!))]
        if case .cutShort(let reason)? = p.ending { members += [("ending", .string("cutShort")), ("endingReason", .string(reason))] } else { members.append(("ending", .string("finished"))) }
        members.append(("events", .array(p.events.map { e in
            .object([("kind", .string(e.kind.rawValue)), ("timestamp", .number(e.timestampSeconds)), ("stimulusSeconds", .number(e.stimulusSeconds))]
                    + (e.fromStimulusSeconds.map { [("fromStimulusSeconds", JSONValue.number($0))] } ?? []))
        })))
        members.append(("playback", .array(p.playback.map { .object([("timestamp", .number($0.timestampSeconds)), ("stimulusSeconds", .number($0.stimulusSeconds))]) })))
        return .object(members)
    }

    @Test("timeline without --rect or --start: per showing, each playback second holds the samples the schedule puts there (pause piled, seek revisited)",
          .enabled(if: ready, reason))
    func timelineFromPresentations() throws {
        let (workspace, id, begin, gaze, stimulus) = try Self.prepare()
        defer { workspace.folder.remove() }
        let result = try workspace.run(["stimulus", "timeline", id, "--stimulus", stimulus])
        try #require(result.status == 0, "\(result.stderr)")
        let rows = StimulusCommandTests.rows(result.stdout)
        #expect(result.stdout.hasPrefix("session,showing,stimulusSeconds,samples,"), "\(result.stdout.prefix(80))")
        // Expected from the schedule alone: presentation 0 is showing 1, presentation 2 showing 2.
        for (showing, index) in [(1, 0), (2, 2)] {
            var expected: [Int: Int] = [:]
            for t in gaze {
                if let position = StudyPresentations.position(index, at: t - begin) { expected[Int(position.rounded(.down)), default: 0] += 1 }
            }
            let got = rows.filter { $0["showing"] == String(showing) }
            // Showing 1 played 0…6 s; showing 2 reached 4.5 s before the player died.
            #expect(got.map { $0["stimulusSeconds"] } == (showing == 1 ? ["0.000", "1.000", "2.000", "3.000", "4.000", "5.000"]
                                                                    : ["0.000", "1.000", "2.000", "3.000", "4.000"]), "\(got)")
            for row in got {
                let second = Int(Double(row["stimulusSeconds"]!)!)
                #expect(row["samples"] == String(expected[second, default: 0]), "showing \(showing) second \(second): \(row)")
            }
            if showing == 2 {
                // The pause (1.5 s) and a second visit pile on second 2: 3.5 s of session time against 1 s of the first showing.
                #expect(expected[2, default: 0] > 3 * expected[0, default: 0] && expected[0, default: 0] > 15, "\(expected)")
            }
        }
        #expect(rows.allSatisfy { $0["session"] == id })

        // The second showing alone.
        let second = try workspace.run(["stimulus", "timeline", id, "--stimulus", stimulus, "--showing", "2"])
        try #require(second.status == 0, "\(second.stderr)")
        #expect(StimulusCommandTests.rows(second.stdout).map { $0["showing"] } == Array(repeating: "2", count: 5))
    }

    @Test("aoi reports each showing; highlights need one showing per participant; --showing, --start and --end are checked",
          .enabled(if: ready, reason))
    func choicesAndRefusals() throws {
        let (workspace, id, _, _, stimulus) = try Self.prepare()
        defer { workspace.folder.remove() }
        let areas = workspace.folder.path("aois.json")
        try #"[{"name": "all", "rect": [0, 0, 640, 360]}]"#.write(toFile: areas, atomically: true, encoding: .utf8)
        let aoi = try workspace.run(["stimulus", "aoi", id, "--stimulus", stimulus, "--aois", areas])
        try #require(aoi.status == 0, "\(aoi.stderr)")
        #expect(StimulusCommandTests.rows(aoi.stdout).map { $0["showing"] } == ["1", "2"], "\(aoi.stdout)")

        let highlights = try workspace.run(["stimulus", "highlights", id, "--stimulus", stimulus])
        StimulusCommandTests.oneLine(highlights, 64, "showed the stimulus 2 times")
        #expect(highlights.stderr.contains("--showing N"))
        // One sentence each, then the help named, as every usage error ends.
        #expect(highlights.stderr.hasSuffix("per participant. Choose one with --showing N. See 'gazerec stimulus highlights --help'.\n"),
                "\(highlights.stderr)")
        let one = try workspace.run(["stimulus", "highlights", id, "--stimulus", stimulus, "--showing", "1"])
        #expect(one.status == 0, "\(one.stderr)")

        StimulusCommandTests.oneLine(try workspace.run(["stimulus", "timeline", id, "--stimulus", stimulus, "--showing", "3"]), 1,
                                     "showed the stimulus 2 times, so it has no showing 3")
        StimulusCommandTests.oneLine(try workspace.run(["stimulus", "timeline", id, "--stimulus", stimulus, "--start", "x"]), 64,
                                     "--start goes with --rect")
        StimulusCommandTests.oneLine(try workspace.run(["stimulus", "timeline", id, "--stimulus", stimulus, "--end", "x"]), 64,
                                     "--end goes with --rect")
        StimulusCommandTests.oneLine(try workspace.run(["stimulus", "timeline", id, "--stimulus", stimulus, "--rect", "0,40,1280,720",
                                                        "--showing", "1"]), 64, "--showing goes without --rect")
        // Another file (same size and kind, other content) was not presented.
        let other = workspace.folder.path("other.mkv")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=6", "-c:v", "ffv1", other])
        try #require(made.status == 0, "\(made.stderr)")
        let refused = try workspace.run(["stimulus", "timeline", id, "--stimulus", other])
        StimulusCommandTests.oneLine(refused, 64, "none of the sessions presented \(other)")
        #expect(refused.stderr.contains("--rect"))
        // The --rect path is as it was: stimulus time since the session's start.
        let rect = try workspace.run(["stimulus", "timeline", id, "--stimulus", stimulus, "--rect", "0,40,1280,720"])
        try #require(rect.status == 0, "\(rect.stderr)")
        #expect(rect.stdout.hasPrefix("session,stimulusSeconds,"))
    }
}
