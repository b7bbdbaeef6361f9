import Foundation
import JSONStream
import Testing
import TestSupport

/// An experiment run from a shell: event markers sent while recording, then analysed by interval.
@Suite("gazerec mark and --between", .serialized)
struct MarkerCommandTests {
    static let modelPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
    static var ready: Bool { Fixtures.available && FileManager.default.fileExists(atPath: modelPath) }

    @Test("a shell script records an experiment: start detached, three stimulus markers, stop; export, CSV and fixations follow the intervals",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func experimentFromAShell() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let environment = ["GAZEREC_DATABASE": database]
        // A calibration so the session has gaze (the head-turn schedule of the shared clip).
        let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/calibration-headturns-20s.txt").path
        let clip = Fixtures.path("video/cap12_headturns_20s.mp4")
        let calibrated = try Binary.run(["calibrate", "--input", clip, "--script", script], environment: environment)
        try #require(calibrated.status == 0, "\(calibrated.stderr)")

        let experiment = folder.path("experiment.sh")
        try """
            set -euo pipefail
            gazerec="$1"
            id=$("$gazerec" start --input "$2" --detach)
            sleep 1
            "$gazerec" mark stimulus-A --data '{"trial": 1, "image": "a.png"}' > /dev/null
            sleep 2
            "$gazerec" mark stimulus-B --data '{"trial": 2}' > /dev/null
            sleep 2
            "$gazerec" mark question > /dev/null
            sleep 1
            "$gazerec" stop > /dev/null
            echo "$id"
            """.write(toFile: experiment, atomically: true, encoding: .utf8)
        let ran = try Binary.runProcess("/bin/bash", [experiment, Binary.gazerec, clip], environment: environment)
        try #require(ran.status == 0, "\(ran.stderr)")
        let id = ran.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // The export has the markers, in order, with their data.
        let exported = try Binary.run(["export", id], environment: environment)
        let session = try JSONValue.parse(Array(exported.stdoutData))
        let markers = session["gazerec"]?["markers"]?.arrayValue ?? []
        #expect(markers.compactMap { if case .string(let label)? = $0["label"] { label } else { nil } }
                == ["stimulus-A", "stimulus-B", "question"])
        #expect(markers.first?["data"]?["image"] == .string("a.png"))
        let times = markers.compactMap { if case .number(let t)? = $0["timestamp"] { t } else { nil } }
        #expect(times.count == 3 && zip(times, times.dropFirst()).allSatisfy { $1 - $0 > 1.5 })

        // The CSV labels every sample with its interval: nothing before A, then A, B, question.
        let csv = try Binary.run(["export", id, "--format", "csv"], environment: environment).stdout
        let lines = csv.split(separator: "\n")
        let columns = lines[0].split(separator: ",").map(String.init)
        let markerColumn = columns.firstIndex(of: "marker")!, timeColumn = columns.firstIndex(of: "timestampSeconds")!
        for line in lines.dropFirst() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            let time = Double(cells[timeColumn])!
            let expected = time < times[0] ? "" : time < times[1] ? "stimulus-A" : time < times[2] ? "stimulus-B" : "question"
            #expect(String(cells[markerColumn]) == expected, "at \(time)")
        }

        // Attention per interval: the frames the CSV puts in it, gaze on the screen as its onScreen flags say,
        // the session's eye figures those recorded with it.
        let onScreenColumn = columns.firstIndex(of: "onScreen")!, frameColumn = columns.firstIndex(of: "frame")!
        let xColumn = columns.firstIndex(of: "xPoints")!, yColumn = columns.firstIndex(of: "yPoints")!
        var framesByLabel: [String: Int] = [:], onScreenByLabel: [String: Int] = [:]
        for line in lines.dropFirst() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let label = cells[markerColumn]
            if !cells[frameColumn].isEmpty { framesByLabel[label, default: 0] += 1 }
            if let x = Double(cells[xColumn]), let y = Double(cells[yColumn]) {
                let inside = x >= 0 && y >= 0 && x <= 1600 && y <= 900
                #expect(cells[onScreenColumn] == (inside ? "1" : "0"))
                if inside { onScreenByLabel[label, default: 0] += 1 }
            } else {
                #expect(cells[onScreenColumn].isEmpty)
            }
        }
        let shown = try Binary.run(["show", id, "--json"], environment: environment)
        let attention = try #require(try JSONValue.parse(Array(shown.stdoutData))["attention"])
        #expect(session["gazerec"]?["attention"] == attention)
        let intervals = attention["intervals"]?.arrayValue ?? []
        #expect(intervals.count == 3)
        for interval in intervals {
            guard case .string(let label)? = interval["label"], case .number(let frames)? = interval["frames"],
                  case .number(let onScreen)? = interval["onScreenShare"] else {
                Issue.record("interval without label, frames or onScreenShare: \(interval)")
                continue
            }
            #expect(Int(frames) == framesByLabel[label], "\(label)")
            #expect(abs(onScreen - Double(onScreenByLabel[label] ?? 0) / frames) < 1e-4, "\(label)")
        }
        #expect(attention["blinks"] == session["gazerec"]?["eyes"]?["blinks"])
        #expect(attention["perclos"] == session["gazerec"]?["eyes"]?["perclos"])
        let text = try Binary.run(["show", id], environment: environment).stdout
        #expect(text.contains("Attention") && text.contains("stimulus-B ("))

        // fixations --between reports only that interval.
        let all = try Binary.run(["fixations", id, "--format", "json"], environment: environment)
        let trial = try Binary.run(["fixations", id, "--format", "json", "--between", "stimulus-A", "stimulus-B"],
                                   environment: environment)
        #expect(trial.status == 0, "\(trial.stderr)")
        func starts(_ result: CommandResult) throws -> [(Double, Double)] {
            let value = try JSONValue.parse(Array(result.stdoutData))
            let list = value.arrayValue ?? value["fixations"]?.arrayValue ?? []
            return list.compactMap {
                guard case .number(let start)? = $0["start"], case .number(let end)? = $0["end"] else { return nil }
                return (start, end)
            }
        }
        let inTrial = try starts(trial)
        #expect(!inTrial.isEmpty)
        #expect(inTrial.allSatisfy { $0.0 >= times[0] && $0.1 < times[1] })
        #expect(try starts(all).count > inTrial.count)

        // A label the session lacks is named with the ones it has; a marker without a recording is refused.
        let unknown = try Binary.run(["fixations", id, "--between", "stimulus-C"], environment: environment)
        #expect(unknown.status == 1 && unknown.stderr.contains("its markers are stimulus-A, stimulus-B, question."))
        let orphan = try Binary.run(["mark", "late"], environment: environment)
        #expect(orphan.status == 1 && orphan.stderr.contains("no recording is running for \(database)"))

        // Markers travel: import of the export gives the same bytes back.
        let file = folder.path("session.json")
        try exported.stdoutData.write(to: URL(fileURLWithPath: file))
        let elsewhere = ["GAZEREC_DATABASE": folder.path("other.sqlite")]
        #expect(try Binary.run(["import", file], environment: elsewhere).status == 0)
        #expect(try Binary.run(["export", id], environment: elsewhere).stdoutData == exported.stdoutData)
    }

    @Test("start --markers-from: markers from a named pipe into a background recording, from stdin into a foreground one",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func markersFromAPipe() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let environment = ["GAZEREC_DATABASE": database]
        let clip = Fixtures.path("video/cap13_blinks_20s.mp4")
        let fifo = folder.path("markers")
        try #require(mkfifo(fifo, 0o600) == 0)
        let experiment = folder.path("experiment.sh")
        try """
            set -euo pipefail
            gazerec="$1"
            id=$("$gazerec" start --input "$2" --calibration none --detach --markers-from "$3")
            exec 3>"$3"
            sleep 1
            echo stimulus-A >&3
            sleep 1
            printf 'stimulus-B\t{"trial": 2}\n' >&3
            printf 'broken\tnot json\n\n' >&3
            sleep 1
            "$gazerec" stop > /dev/null
            echo "$id"
            """.write(toFile: experiment, atomically: true, encoding: .utf8)
        let ran = try Binary.runProcess("/bin/bash", [experiment, Binary.gazerec, clip, fifo], environment: environment)
        try #require(ran.status == 0, "\(ran.stderr)")
        let id = ran.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let session = try JSONValue.parse(Array(try Binary.run(["export", id], environment: environment).stdoutData))
        let markers = session["gazerec"]?["markers"]?.arrayValue ?? []
        #expect(markers.compactMap { if case .string(let label)? = $0["label"] { label } else { nil } }
                == ["stimulus-A", "stimulus-B", "broken"])
        #expect(markers.count == 3 && markers[1]["data"]?["trial"] == .number(2) && markers[2]["data"] == nil)
        let times = markers.compactMap { if case .number(let t)? = $0["timestamp"] { t } else { nil } }
        #expect(times.count == 3 && times[1] - times[0] > 0.8 && times[2] - times[1] < 0.5)
        // The line whose data is not JSON is named in the recorder's log; its marker is kept.
        let log = (try? String(contentsOfFile: database + ".recorder.log", encoding: .utf8)) ?? ""
        #expect(log.contains("marker 'broken' stored without its data, which is not JSON: \(fifo):3"), "\(log)")

        // From stdin: each line stamped as it arrives.
        let piped = try Binary.runProcess("/bin/bash", ["-c", """
            (sleep 1; echo first; sleep 1; echo second) | "$1" start --input "$2" --calibration none --duration 3.5 --markers-from -
            """, "bash", Binary.gazerec, clip], environment: environment)
        try #require(piped.status == 0, "\(piped.stderr)")
        let second = piped.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let stdinSession = try JSONValue.parse(Array(try Binary.run(["export", second], environment: environment).stdoutData))
        let stdinMarkers = stdinSession["gazerec"]?["markers"]?.arrayValue ?? []
        #expect(stdinMarkers.compactMap { if case .string(let label)? = $0["label"] { label } else { nil } } == ["first", "second"])

        // What cannot work is refused before recording.
        let missing = try Binary.run(["start", "--input", clip, "--markers-from", folder.path("nothing")], environment: environment)
        #expect(missing.status == 66 && missing.stderr.contains("--markers-from \(folder.path("nothing")): No such file or directory"))
        let detachedStdin = try Binary.run(["start", "--input", clip, "--detach", "--markers-from", "-"], environment: environment)
        #expect(detachedStdin.status == 64 && detachedStdin.stderr.contains("a background recorder has none"))
    }

    @Test("mark --at: a time before the session began or after now is refused with the session's span; one inside it is stored",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func markTimeInsideTheSession() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let clip = Fixtures.path("video/cap13_blinks_20s.mp4")
        let started = try Binary.run(["start", "--input", clip, "--calibration", "none", "--detach"], environment: environment)
        try #require(started.status == 0, "\(started.stderr)")
        let id = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        defer { _ = try? Binary.run(["stop"], environment: environment) }
        let now = Date().timeIntervalSince1970
        // Long ago, far ahead (milliseconds given for seconds), and an hour ahead: each refused, the span named.
        for wrong in [1000, 99_999_999_999, now + 3600] {
            let refused = try Binary.run(["mark", "late", "--at", String(wrong)], environment: environment)
            #expect(refused.status == 64, "\(wrong): \(refused.stderr)")
            #expect(refused.stderr.contains("lies outside session \(id), which began at ") && refused.stderr.contains(" UTC)"),
                    "\(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1 && refused.stdout.isEmpty)
        }
        // A moment of the recording (just before the command runs) is stored at that time.
        let inside = Date().timeIntervalSince1970
        let kept = try Binary.run(["mark", "on-time", "--at", String(inside)], environment: environment)
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try Binary.run(["stop"], environment: environment).status == 0)
        let session = try JSONValue.parse(Array(try Binary.run(["export", id], environment: environment).stdoutData))
        let markers = session["gazerec"]?["markers"]?.arrayValue ?? []
        #expect(markers.count == 1 && markers.first?["label"] == .string("on-time") && markers.first?["timestamp"] == .number(inside))
    }

    @Test("start --save-video keeps every frame; reanalyze reproduces the live frames, gaze, blend shapes and blinks, and keeps the markers",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func savedVideoReanalysed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/calibration-headturns-20s.txt").path
        let clip = Fixtures.path("video/cap12_headturns_20s.mp4")
        let calibrated = try Binary.run(["calibrate", "--input", clip, "--script", script], environment: environment)
        try #require(calibrated.status == 0, "\(calibrated.stderr)")
        let video = folder.path("kept.mkv")
        let piped = try Binary.runProcess("/bin/bash", ["-c", """
            (sleep 2; echo trial-1) | "$1" start --input "$2" --duration 5 --save-video "$3" --markers-from -
            """, "bash", Binary.gazerec, clip, video], environment: environment)
        try #require(piped.status == 0, "\(piped.stderr)")
        let id = piped.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let before = try JSONValue.parse(Array(try Binary.run(["export", id], environment: environment).stdoutData))
        let frames = before["gazerec"]?["frames"]?.arrayValue ?? []
        #expect(frames.count > 100)
        #expect(before["gazerec"]?["recorder"]?["savedVideo"]?["frames"] == .number(Double(frames.count)))
        #expect(before["gazerec"]?["recorder"]?["savedVideo"]?["droppedFrames"] == .number(0))
        #expect(piped.stderr.contains("video: \(frames.count) frames in \(video)"))

        let redone = try Binary.run(["reanalyze", id], environment: environment)
        #expect(redone.status == 0, "\(redone.stderr)")
        let after = try JSONValue.parse(Array(try Binary.run(["export", id], environment: environment).stdoutData))
        #expect((before["scanPath"]?.arrayValue?.count ?? 0) > 100)
        #expect(after["scanPath"] == before["scanPath"])
        #expect(after["blendShapes"] == before["blendShapes"])
        for key in ["frames", "blinks", "markers", "eyes", "attention"] {
            #expect(after["gazerec"]?[key] == before["gazerec"]?[key], "\(key)")
        }
        #expect(after["gazerec"]?["reanalysis"]?["video"] == .string(video))

        // A video that is not the session's changes nothing; a session without one is told so.
        let other = folder.path("other.mkv")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", clip, "-t", "1", "-c:v", "ffv1", "-an", other])
        try #require(made.status == 0, "\(made.stderr)")
        let exported = try Binary.run(["export", id], environment: environment).stdoutData
        let wrong = try Binary.run(["reanalyze", id, "--video", other], environment: environment)
        #expect(wrong.status == 1 && wrong.stderr.contains("has 25 frames but the session stores \(frames.count)"), "\(wrong.stderr)")
        #expect(try Binary.run(["export", id], environment: environment).stdoutData == exported)
        let plain = try Binary.run(["start", "--input", clip, "--duration", "1", "--calibration", "none", "--as-fast-as-possible"],
                                   environment: environment)
        let plainID = plain.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let none = try Binary.run(["reanalyze", plainID], environment: environment)
        #expect(none.status == 1 && none.stderr.contains("was recorded without keeping its video"))
        let exists = try Binary.run(["start", "--input", clip, "--save-video", video], environment: environment)
        #expect(exists.status == 64 && exists.stderr.contains("the file exists"))
    }

    @Test("a session recorded with --focal-length keeps it, and reanalyze measures head pose with it again",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func focalLengthKept() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let recorded = try Binary.run(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--duration", "2",
                                       "--calibration", "none", "--focal-length", "500", "--save-video", folder.path("v.mkv")],
                                      environment: environment)
        try #require(recorded.status == 0, "\(recorded.stderr)")
        let id = recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let before = try JSONValue.parse(Array(try Binary.run(["export", id], environment: environment).stdoutData))
        #expect(before["gazerec"]?["recorder"]?["focalLengthPixels"] == .number(500))
        #expect(try Binary.run(["reanalyze", id], environment: environment).status == 0)
        let after = try JSONValue.parse(Array(try Binary.run(["export", id], environment: environment).stdoutData))
        #expect((after["gazerec"]?["frames"]?.arrayValue?.count ?? 0) > 30)
        #expect(after["gazerec"]?["frames"] == before["gazerec"]?["frames"])
    }
}
