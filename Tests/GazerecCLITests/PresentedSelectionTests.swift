import Foundation
import JSONStream
import Testing
import TestSupport

/// The stimulus commands' recording selection and tables on sessions that presented the stimulus
/// themselves (no --rect): the data-quality thresholds leave a session out and name it, and
/// `--table transitions` is given per showing, as on the --rect path.
@Suite("gazerec stimulus from presentations: quality, exclusions and tables", .serialized)
struct PresentedSelectionTests {
    static let ready = StimulusCommandTests.ready
    static let reason = StimulusCommandTests.reason

    /// Imports a session that presented `video` (320×180, 6 s) at 100,50,640,360 points from 1 s
    /// after its begin for 6 s, with no marker: the gaze rests on stimulus pixel (40, 30) for the
    /// first 3 s of playback, then on (240, 30); frames from `missingFrom` playback seconds on have no face.
    static func importPresented(_ workspace: Workspace, id: String, video: String, missingFrom: Double = 99) throws {
        let begin = StimulusCommandTests.begin, onset = StimulusCommandTests.videoStart
        // The file's facts by coreutils, not by gazerec.
        let hashed = try Binary.runProcess("/usr/bin/sha256sum", [video])
        let sha256 = String(hashed.stdout.prefix(64))
        let size = try #require(try FileManager.default.attributesOfItem(atPath: video)[.size] as? Int)
        let samples = (0..<480).map { index -> String in
            let time = begin + Double(index) / 60, t = time - onset
            let state = t >= missingFrom && t < 6 ? #","trackingState":"notTracking""# : ""
            let pixel = t < 3 ? 40.0 : 240.0
            let (x, y) = t >= 0 && t < 6 ? (100 + 2 * pixel, 50 + 2 * 30.0) : (5.0, 5.0)
            return #"{"x":\#(x),"y":\#(y),"timestamp":\#(time),"orientation":3\#(state)}"#
        }
        let playback = stride(from: 0.0, to: 6, by: 0.25).map { #"{"timestamp":\#(onset + $0),"stimulusSeconds":\#($0)}"# }
        let presentation = """
            {"index":0,"label":"clip","kind":"video","fileName":"stimulus.mkv","byteSize":\(size),"sha256":"\(sha256)",
             "frameRate":30,"widthPixels":320,"heightPixels":180,"rect":{"x":100,"y":50,"width":640,"height":360},
             "durationSeconds":6,"onset":\(onset),"offset":\(onset + 6),"ending":"finished","events":[],
             "playback":[\(playback.joined(separator: ","))]}
            """
        let document = """
            {"id":"\(id)","appID":"t","beginTime":\(begin),"endTime":\(begin + 8),
             "deviceInfo":{"model":"m","screenSize":[1280,800],"systemName":"Linux","systemVersion":"6"},
             "scanPath":[\(samples.joined(separator: ","))], "blendShapes":{},
             "gazerec":{"calibration":{"id":"c","createdAt":\(begin - 100),"points":9,"accuracyDegrees":1.2,"accuracyPoints":48},
                        "presentations":[\(presentation)]}}
            """
        let file = workspace.folder.path("\(id).json")
        try document.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try workspace.run(["import", file])
        try #require(imported.status == 0, "\(imported.stderr)")
    }

    @Test("without --rect, --exclude-valid-below leaves a session out and names it, and --table transitions has each showing's rows",
          .enabled(if: ready && FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum"), reason))
    func exclusionAndTransitions() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let good = "5C000000-0000-0000-0000-000000000001", patchy = "5C000000-0000-0000-0000-000000000002"
        let other = "5C000000-0000-0000-0000-000000000003"
        // Session `other` (the markers' way) only makes the stimulus video.
        let video = try StimulusCommandTests.prepare(workspace, id: other)
        try Self.importPresented(workspace, id: good, video: video)
        // 1.5 of the 6 s without a face: 90 of 360 frames.
        try Self.importPresented(workspace, id: patchy, video: video, missingFrom: 4.5)
        let areas = try StimulusCommandTests.aois(workspace, #"[{"name": "left", "rect": [0, 0, 160, 180]}, {"name": "right", "rect": [160, 0, 160, 180]}]"#)
        func run(_ extra: [String]) throws -> CommandResult {
            try workspace.run(["stimulus", "aoi", good, patchy, "--stimulus", video, "--aois", areas] + extra)
        }

        // The quality columns, measured over the presentation.
        let all = try run([])
        try #require(all.status == 0, "\(all.stderr)")
        let rows = StimulusCommandTests.rows(all.stdout)
        #expect(all.stdout.hasPrefix("session,showing,aoi,"), "\(all.stdout)")
        #expect(rows.filter { $0["session"] == patchy }.map { $0["validShare"] } == ["0.7500", "0.7500"], "\(all.stdout)")
        #expect(rows.filter { $0["session"] == good }.map { $0["validShare"] } == ["1.0000", "1.0000"], "\(all.stdout)")

        let strict = try run(["--exclude-valid-below", "0.9", "--table", "transitions"])
        try #require(strict.status == 0, "\(strict.stderr)")
        #expect(strict.stderr.contains("warning: session \(patchy) left out: showing 1: its share of valid samples 0.750 is below 0.9"),
                "\(strict.stderr)")
        #expect(strict.stdout.hasPrefix("session,showing,group,from,to,count\n"), "\(strict.stdout)")
        let transitions = StimulusCommandTests.rows(strict.stdout)
        // Only `good`, its one showing: left → right once (at 3 s), never back.
        #expect(transitions.map { [$0["session"]!, $0["showing"]!, $0["from"]!, $0["to"]!, $0["count"]!] }
                == [[good, "1", "left", "right", "1"], [good, "1", "right", "left", "0"]], "\(strict.stdout)")

        // Every session left out: each one's reason.
        let none = try run(["--exclude-accuracy-above", "1.0"])
        StimulusCommandTests.oneLine(none, 1, "none of the 2 sessions could be analysed against the stimulus: "
            + "session \(good) left out: showing 1: its calibration's accuracy 1.20° is worse than 1°; session \(patchy) left out: ")
    }
}
