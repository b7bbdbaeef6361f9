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
        let markerColumn = columns.firstIndex(of: "marker")!, timeColumn = columns.firstIndex(of: "timestamp")!
        for line in lines.dropFirst() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            let time = Double(cells[timeColumn])!
            let expected = time < times[0] ? "" : time < times[1] ? "stimulus-A" : time < times[2] ? "stimulus-B" : "question"
            #expect(String(cells[markerColumn]) == expected, "at \(time)")
        }

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
}
