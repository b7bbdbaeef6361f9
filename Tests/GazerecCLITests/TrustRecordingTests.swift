import Foundation
import JSONStream
import Testing
import TestSupport

/// Trust items on recording and replay, rotation, head pose and the CSV (4, 7, 10, 13): the real
/// binary on the shared clips.
extension TrustTests {
    /// The session's export as JSON.
    static func exported(_ id: String, environment: [String: String]) throws -> JSONValue {
        let export = try Binary.run(["export", id], environment: environment)
        try #require(export.status == 0, "\(export.stderr)")
        return try JSONValue.parse(Array(export.stdoutData))
    }

    @Test("a file read as fast as possible keeps every frame in its saved video, and reanalyze takes the session (4)",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func fastFileKeepsEveryVideoFrame() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let video = folder.path("fast.mkv")
        // The clip of the report: 765 frames, of which 73–146 were left out of the video before.
        let recorded = try Binary.run(["start", "--input", Fixtures.path("video/cap13_edit2.mp4"), "--as-fast-as-possible",
                                       "--calibration", "none", "--save-video", video], environment: environment)
        try #require(recorded.status == 0, "\(recorded.stderr)")
        let id = recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let session = try Self.exported(id, environment: environment)

        let frames = session["gazerec"]?["frames"]?.arrayValue?.count ?? 0
        #expect(frames == 765)  // every frame of the clip
        #expect(session["gazerec"]?["recorder"]?["savedVideo"]?["frames"] == .number(Double(frames)))
        #expect(session["gazerec"]?["recorder"]?["savedVideo"]?["droppedFrames"] == .number(0))
        let redone = try Binary.run(["reanalyze", id], environment: environment)
        #expect(redone.status == 0, "\(redone.stderr)")
    }

    @Test("a camera's video that lacks frames: show and the export say how many, reanalyze analyses the frames it has (4)",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func videoWithLeftOutFramesReanalysed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let kept = folder.path("kept.mkv"), gap = folder.path("gap.mkv")
        let id = try Self.recordWithVideo(kept, environment: environment)
        let before = try Self.exported(id, environment: environment)
        let times = (before["gazerec"]?["frames"]?.arrayValue ?? []).compactMap { if case .number(let time)? = $0["timestamp"] { time } else { nil } }
        try #require(times.count > 40)
        // What a camera's writer leaves out when it falls behind: frames 10–19 (the rest keep their times).
        let cut = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", kept, "-vf", "select='not(between(n,10,19))'",
                                                            "-fps_mode", "passthrough", "-c:v", "ffv1", gap])
        try #require(cut.status == 0, "\(cut.stderr)")
        let text = try Binary.run(["export", id], environment: environment).stdout
        let saved = "\"savedVideo\":{\"path\":\"\(kept)\",\"frames\":\(times.count),\"droppedFrames\":0}"
        try #require(text.contains(saved))
        let file = folder.path("session.json")
        try Data(text.replacingOccurrences(of: saved, with: "\"savedVideo\":{\"path\":\"\(gap)\",\"frames\":\(times.count - 10),"
                                           + "\"droppedFrames\":10}").utf8).write(to: URL(fileURLWithPath: file))
        try #require(try Binary.run(["import", file, "--replace"], environment: environment).status == 0)

        let show = try Binary.run(["show", id], environment: environment)
        let redone = try Binary.run(["reanalyze", id], environment: environment)

        #expect(show.stdout.contains("Saved video    \(gap), \(times.count - 10) frames, 10 left out"), "\(show.stdout)")
        #expect(redone.status == 0, "\(redone.stderr)")
        #expect(redone.stderr.contains("10 frames the video lacked"), "\(redone.stderr)")
        let after = try Self.exported(id, environment: environment)
        let afterTimes = (after["gazerec"]?["frames"]?.arrayValue ?? []).compactMap { if case .number(let time)? = $0["timestamp"] { time } else { nil } }
        #expect(afterTimes == Array(times[0..<10] + times[20...]))
        #expect(after["gazerec"]?["recorder"]?["savedVideo"]?["droppedFrames"] == .number(10))
        // Done once, the session and its video pair one to one: a second re-analysis changes nothing.
        #expect(try Binary.run(["reanalyze", id], environment: environment).status == 0)
        #expect(try Self.exported(id, environment: environment)["gazerec"]?["frames"] == after["gazerec"]?["frames"])
    }

    /// The rows of an RFC 4180 table (quoted cells may hold commas and doubled quotes; no line breaks here).
    static func csvRows(_ text: String) -> [[String]] {
        text.split(separator: "\n").map { line in
            var cells: [String] = [], cell = "", quoted = false
            var characters = Array(line)[...]
            while let character = characters.popFirst() {
                if character == "\"" {
                    if quoted, characters.first == "\"" {
                        cell.append("\"")
                        characters.removeFirst()
                    } else {
                        quoted.toggle()
                    }
                } else if character == ",", !quoted {
                    cells.append(cell)
                    cell = ""
                } else {
                    cell.append(character)
                }
            }
            return cells + [cell]
        }
    }

    @Test("the CSV has the app id, time since the session began, marker data and long closures, with units in the names (13)",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func csvCarriesEverything() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let piped = try Binary.runProcess("/bin/bash", ["-c", """
            printf 'trial\t{"n": 1, "image": "a,b.png"}\n' | "$1" start --input "$2" --as-fast-as-possible \
              --calibration none --app-id study-7 --markers-from -
            """, "bash", Binary.gazerec, Fixtures.path("video/cap13_blinks_20s.mp4")], environment: environment)
        try #require(piped.status == 0, "\(piped.stderr)")
        let id = piped.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let session = try Self.exported(id, environment: environment)

        let csv = try Binary.run(["export", id, "--format", "csv"], environment: environment)

        #expect(csv.status == 0, "\(csv.stderr)")
        let table = Self.csvRows(csv.stdout)
        let header = table[0], rows = table.dropFirst()
        #expect(rows.allSatisfy { $0.count == header.count })
        func column(_ name: String) throws -> Int { try #require(header.firstIndex(of: name), "no column \(name)") }
        let time = try column("timestampSeconds"), elapsed = try column("elapsedSeconds"), app = try column("appID")
        let markerData = try column("markerData"), longClosure = try column("longClosure"), frame = try column("frame")
        #expect(try column("xPoints") > 0 && column("yPoints") > 0 && column("tzMillimetres") > 0)
        // The app id on every row; the time since beginTime beside the Unix time.
        guard case .number(let begin)? = session["beginTime"] else { Issue.record("no beginTime"); return }
        #expect(rows.allSatisfy { $0[app] == "study-7" })
        #expect(rows.allSatisfy { abs(Double($0[elapsed])! - (Double($0[time])! - begin)) < 1e-6 })
        #expect(rows.first.map { Double($0[elapsed])! >= 0 && Double($0[elapsed])! < 1 } == true)
        // The marker's data on the rows of its interval, as stored (compact JSON).
        let stored = try #require(session["gazerec"]?["markers"]?.arrayValue?.first?["data"]?.compactText)
        #expect(stored == #"{"n":1,"image":"a,b.png"}"#)
        #expect(rows.contains { $0[markerData] == stored })
        let marker = try column("marker")
        #expect(rows.allSatisfy { $0[markerData] == ($0[marker] == "trial" ? stored : "") })
        // The long closure's frames are flagged, and only they.
        let spans: [(Double, Double)] = (session["gazerec"]?["blinks"]?.arrayValue ?? []).compactMap {
            guard $0["kind"] == .string("longClosure"), case .number(let start)? = $0["start"], case .number(let end)? = $0["end"] else { return nil }
            return (start, end)
        }
        #expect(spans.count == 1)
        let frameRows = rows.filter { !$0[frame].isEmpty }
        #expect(frameRows.filter { $0[longClosure] == "1" }.count > 10)
        #expect(frameRows.allSatisfy { row in
            let t = Double(row[time])!
            return row[longClosure] == (spans.contains { t >= $0.0 && t <= $0.1 } ? "1" : "0")
        })
        // Every column but the blend shapes is in the CSV table of docs/ExportFormat.md.
        let docs = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/ExportFormat.md"), encoding: .utf8)
        let section = try #require(docs.components(separatedBy: "## CSV").dropFirst().first?.components(separatedBy: "\n## ").first)
        for name in header where !name.hasPrefix("eye") && !name.hasPrefix("jaw") {
            #expect(section.contains("`\(name)`"), "docs/ExportFormat.md does not describe \(name)")
        }
    }

    /// dlib's CNN face detector as gazerec's set-up installs it: it finds the sideways faces the HOG detector cannot.
    static var cnnInstalled: Bool {
        let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"] ?? (NSHomeDirectory() + "/.local/share")
        return ready && FileManager.default.fileExists(atPath: data + "/gazerec/models/mmod_human_face_detector.dat")
    }

    @Test("a sideways picture: its frames are not tracked and a warning says so once; --rotate 90 tracks it (7, 10)",
          .enabled(if: cnnInstalled, "needs ../shared/fixtures, the dlib model and the CNN detector (Scripts/setup-models.sh)"))
    func sidewaysPictureWarnedAndRotated() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        // A camera lying on its side: the clip turned a quarter turn counter-clockwise, nothing in the container says so.
        let sideways = folder.path("sideways.mp4")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", Fixtures.path("video/cap13_blinks_20s.mp4"),
                                                             "-frames:v", "40", "-vf", "transpose=cclock", "-c:v", "libx264",
                                                             "-qp", "0", "-pix_fmt", "yuv420p", "-an", sideways])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        func warnings(_ stderr: String) -> [Substring] { stderr.split(separator: "\n").filter { $0.contains("warning: from") } }

        let analysed = try Binary.run(["analyze", "--input", sideways], environment: environment)
        let recorded = try Binary.run(["start", "--input", sideways, "--as-fast-as-possible", "--calibration", "none"],
                                      environment: environment)
        let turned = try Binary.run(["analyze", "--input", sideways, "--rotate", "90"], environment: environment)
        let odd = try Binary.run(["start", "--input", sideways, "--rotate", "45"], environment: environment)

        #expect(analysed.status == 0 && recorded.status == 0, "\(analysed.stderr)\n\(recorded.stderr)")
        #expect(warnings(analysed.stderr).count == 1, "\(analysed.stderr)")
        #expect(warnings(analysed.stderr).first?.contains("turned 90° clockwise") == true)
        #expect(warnings(analysed.stderr).first?.hasSuffix("(--rotate 90)") == true)
        #expect(analysed.stderr.contains("face in 0.0 %"), "\(analysed.stderr)")
        #expect(warnings(recorded.stderr).count == 1, "\(recorded.stderr)")
        #expect(recorded.stderr.contains("face in 0.0 %"), "\(recorded.stderr)")
        #expect(turned.status == 0 && warnings(turned.stderr).isEmpty, "\(turned.stderr)")
        #expect(turned.stderr.contains("face in 100.0 %"), "\(turned.stderr)")
        #expect(odd.status == 64 && odd.stderr.contains("--rotate"), "\(odd.stderr)")
    }
}
