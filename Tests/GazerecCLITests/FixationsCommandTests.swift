import Foundation
import GazeModel
import JSONStream
import SessionStore
import Testing
import TestSupport

/// A fresh database holding the iOS fixture: its folder, the environment naming it, the session id.
func importedIOSFixture() throws -> (TemporaryFolder, [String: String], String) {
    let folder = try TemporaryFolder()
    let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
    #expect(try Binary.run(["import", Fixtures.iosSession], environment: environment).status == 0)
    return (folder, environment, "3BE54760-F1E8-4799-A3CB-78806270E72A")
}

@Suite("gazerec fixations")
struct FixationsCommandTests {
    @Test("the iOS fixture gives plausible fixations with both methods (documented counts)",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func iosFixture() throws {
        let (folder, environment, id) = try importedIOSFixture()
        defer { folder.remove() }
        let idt = try Binary.run(["fixations", id, "--format", "json"], environment: environment)
        #expect(idt.status == 0)
        let fixations = try #require(try JSONValue.parse(Array(idt.stdoutData)).arrayValue)
        #expect(fixations.count == 27)  // docs/Analysis.md
        // Plausible: 80 ms or longer, in time order, near the iPad's screen (ARKit's gaze estimate
        // leaves the display now and then: 4 of the 27 centroids lie just off it).
        var previousEnd = 0.0
        var onScreen = 0
        for fixation in fixations {
            guard case .number(let start)? = fixation["start"], case .number(let end)? = fixation["end"],
                  case .number(let x)? = fixation["x"], case .number(let y)? = fixation["y"] else {
                Issue.record("malformed \(fixation)"); continue
            }
            #expect(end - start >= 0.08 && start >= previousEnd)
            #expect((-600...1800).contains(x) && (-600...1800).contains(y))
            if (0...1194).contains(x) && (0...834).contains(y) || (0...834).contains(x) && (0...1194).contains(y) { onScreen += 1 }
            previousEnd = end
        }
        #expect(onScreen >= 20)
        let ivt = try Binary.run(["fixations", id, "--method", "ivt", "--format", "csv"], environment: environment)
        #expect(ivt.stdout.split(separator: "\n").count == 1 + 15)
        #expect(ivt.stderr.contains("15 fixations (ivt) in 380 samples"))
        #expect(try Binary.run(["fixations", id, "--screen-size-mm", "179x250"], environment: environment).status == 64)

        // Export --fixations adds them, with a movement label per scan-path sample, under "gazerec";
        // the plain export stays exactly the iOS package's seven keys.
        let plain = try JSONValue.parse(Array(try Binary.run(["export", id], environment: environment).stdoutData))
        #expect(plain["gazerec"] == nil)
        let withFixations = try Binary.run(["export", "--fixations", id], environment: environment)
        let document = try JSONValue.parse(Array(withFixations.stdoutData))
        #expect(document["gazerec"]?["fixations"]?.arrayValue?.count == 27)
        #expect(document["gazerec"]?["movement"]?.arrayValue?.count == 380)
        // Re-imported and re-exported, the same bytes (the stored copy is replaced, not doubled).
        let file = folder.path("with-fixations.json")
        try withFixations.stdoutData.write(to: URL(fileURLWithPath: file))
        let other = ["GAZEREC_DATABASE": folder.path("other.sqlite")]
        #expect(try Binary.run(["import", file], environment: other).status == 0)
        #expect(try Binary.run(["export", "--fixations", id], environment: other).stdoutData == withFixations.stdoutData)
    }
}

@Suite("gazerec export --format csv")
struct CSVExportTests {
    @Test("the iOS fixture as CSV: one row per sample time, values equal to the JSON's, labels from fixations",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func iosFixture() throws {
        let (folder, environment, id) = try importedIOSFixture()
        defer { folder.remove() }
        let csv = try Binary.run(["export", "--format", "csv", id], environment: environment)
        #expect(csv.status == 0)
        let lines = csv.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let header = lines.first!.split(separator: ",").map(String.init)
        #expect(header.prefix(15) == ["sessionID", "appID", "frame", "timestampSeconds", "elapsedSeconds", "xPoints", "yPoints",
                                      "onScreen", "orientation", "trackingState", "movement", "marker", "markerData",
                                      "eyeBlink_L", "eyeBlink_R"])
        #expect(header[15...18] == ["faceFound", "blink", "longClosure", "confidence"])
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.count == 558)  // the union of the scan-path and blend-shape times
        #expect(rows.allSatisfy { $0.count == header.count })
        #expect(rows.allSatisfy { $0[0] == id })
        // An iOS session has no per-frame data (no frame index, face flag or blink flag) and no markers.
        #expect(rows.allSatisfy { $0[2].isEmpty && $0[11].isEmpty && $0[12].isEmpty && $0[15].isEmpty && $0[16].isEmpty })
        let x = 5, time = 3, onScreen = 7, movement = 10
        // The on-screen flag is on every gaze row, and only there.
        #expect(rows.allSatisfy { $0[x].isEmpty ? $0[onScreen].isEmpty : ["0", "1"].contains($0[onScreen]) })
        #expect(rows.filter { !$0[x].isEmpty }.count == 380)
        #expect(Set(rows.map { $0[movement] }) == ["", "fixation", "saccade"])
        // Same numbers as the JSON export, matched by time.
        let json = try JSONValue.parse(Array(try Binary.run(["export", id], environment: environment).stdoutData))
        var xByTime: [Double: Double] = [:]
        for sample in json["scanPath"]?.arrayValue ?? [] {
            if case .number(let t)? = sample["timestamp"], case .number(let x)? = sample["x"] { xByTime[t] = x }
        }
        let csvX = rows.filter { !$0[x].isEmpty }.map { (Double($0[time])!, Double($0[x])!) }
        #expect(csvX.allSatisfy { xByTime[$0.0] == $0.1 })
        // snake_case converts column names but not blend-shape names.
        let snake = try Binary.run(["export", "--format", "csv", "--snake-case", id], environment: environment)
        #expect(snake.stdout.hasPrefix("session_id,app_id,frame,timestamp_seconds,elapsed_seconds,x_points,y_points,on_screen,orientation,"
                                       + "tracking_state,movement,marker,marker_data,eyeBlink_L,eyeBlink_R,"
                                       + "face_found,blink,long_closure,confidence,openness_left"))
        // Several sessions: one long table, one header, each row with its session (stdout or --output).
        let second = folder.path("second.json")
        try (try String(contentsOfFile: Fixtures.iosSession, encoding: .utf8))
            .replacingOccurrences(of: id, with: "4BE54760-F1E8-4799-A3CB-78806270E72A")
            .write(toFile: second, atomically: true, encoding: .utf8)
        #expect(try Binary.run(["import", second], environment: environment).status == 0)
        let long = try Binary.run(["export", "--format", "csv", "--all"], environment: environment)
        #expect(long.status == 0, "\(long.stderr)")
        let longLines = long.stdout.split(separator: "\n")
        #expect(longLines.count == 1 + 2 * 558)
        #expect(longLines.filter { $0.hasPrefix("sessionID,") }.count == 1)
        #expect(longLines.dropFirst().filter { $0.hasPrefix("4BE54760-F1E8-4799-A3CB-78806270E72A,") }.count == 558)
        #expect(longLines.dropFirst(1 + 558).allSatisfy { $0.hasPrefix("4BE54760") })
        let longFile = folder.path("all.csv")
        #expect(try Binary.run(["export", "--format", "csv", "--all", "--output", longFile], environment: environment).status == 0)
        #expect(FileManager.default.contents(atPath: longFile) == long.stdoutData)
        #expect(try Binary.run(["delete", "4BE54760-F1E8-4799-A3CB-78806270E72A"], environment: environment).status == 0)
        let dir = folder.path("csv")
        #expect(try Binary.run(["export", "--format", "csv", "--all", "--output-dir", dir], environment: environment).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["\(id).csv"])
    }

    @Test("a recorded session as CSV: a frame index and a face flag on every frame row, the blink flag spans the stored blinks",
          .enabled(if: Fixtures.available && FileManager.default.fileExists(atPath: "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"),
                   "needs ../shared/fixtures and the dlib model"))
    func recordedFrames() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let recorded = try Binary.run(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--as-fast-as-possible"],
                                      environment: environment)
        try #require(recorded.status == 0, "\(recorded.stderr)")
        let id = recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let csv = try Binary.run(["export", "--format", "csv", id], environment: environment)
        let lines = csv.stdout.split(separator: "\n")
        let header = lines[0].split(separator: ",").map(String.init)
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let frame = header.firstIndex(of: "frame")!, face = header.firstIndex(of: "faceFound")!
        let blink = header.firstIndex(of: "blink")!, time = header.firstIndex(of: "timestampSeconds")!
        let frameRows = rows.filter { !$0[frame].isEmpty }
        #expect(frameRows.map { Int($0[frame])! } == Array(0..<500))
        #expect(frameRows.allSatisfy { $0[face] == "1" || $0[face] == "0" })
        #expect(frameRows.filter { $0[face] == "1" }.count > 450)
        // The flagged rows are exactly the frames inside the stored blink events.
        let json = try JSONValue.parse(Array(try Binary.run(["export", id], environment: environment).stdoutData))
        let spans: [(Double, Double)] = (json["gazerec"]?["blinks"]?.arrayValue ?? []).compactMap {
            guard $0["kind"] == .string("blink"), case .number(let start)? = $0["start"], case .number(let end)? = $0["end"] else { return nil }
            return (start, end)
        }
        #expect(!spans.isEmpty)
        for row in frameRows {
            let t = Double(row[time])!
            let inside = spans.contains { t >= $0.0 && t <= $0.1 }
            #expect(row[blink] == (inside ? "1" : "0"), "frame \(row[frame]) at \(t)")
        }
    }

}
