import Foundation
import JSONStream
import Testing
import TestSupport

/// The BIDS validator and pybids that Scripts/setup-bids.sh installs in .build-bids/venv.
enum BIDSCheckTools {
    static let bin = Fixtures.repositoryRoot.appendingPathComponent(".build-bids/venv/bin")
    static var validator: String { bin.appendingPathComponent("bids-validator-deno").path }
    static var python: String { bin.appendingPathComponent("python").path }
    static let model = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"

    static var ready: Bool {
        Fixtures.available && FileManager.default.fileExists(atPath: model)
            && FileManager.default.isExecutableFile(atPath: validator) && FileManager.default.isExecutableFile(atPath: python)
    }

    static let reason: Comment = """
        needs ../shared/fixtures, the dlib model, and the BIDS validator and pybids in .build-bids/venv \
        (Scripts/setup-bids.sh installs them; it said why it could not)
        """

    /// What the schema validator reports, every row of every table checked: each error (code at
    /// location), and the warnings not about what only the researcher can add (docs/Lab.md, step 4).
    static func validationIssues(_ root: String) throws -> [String] {
        let result = try Binary.runProcess(validator, ["--format", "json", "--max-rows", "-1", root],
                                           environment: ["NO_COLOR": "1", "DENO_NO_UPDATE_CHECK": "1"])
        let issues = try JSONValue.parse(Array(result.stdoutData), name: "validator output")["issues"]?["issues"]?.arrayValue
        guard let issues else { return ["no issue list in the validator's output: \(result.stderr)"] }
        return issues.compactMap { issue in
            func text(_ key: String) -> String { if case .string(let value)? = issue[key] { return value }; return "" }
            let code = text("code") + (text("subCode").isEmpty ? "" : "/" + text("subCode"))
            if issue["severity"] == .string("warning") && BIDSValidatorWarnings.researcherAdds.contains(code) { return nil }
            return "\(text("severity")) \(code) at \(text("location"))"
        }
    }

    /// pybids indexes the dataset (its own validation on) and pandas reads each physio file by the
    /// columns its sidecar names, as a researcher's script does: per file its entities, the eye,
    /// the row count, the first and last rows; and the onsets of the fixations in the physioevents.
    static let reader = """
        import json, sys
        import pandas as pd
        from bids import BIDSLayout
        layout = BIDSLayout(sys.argv[1], validate=True)
        found = []
        def read(f):
            return pd.read_csv(f.path, sep="\\t", header=None, names=f.get_metadata()["Columns"], na_values="n/a",
                               keep_default_na=False, compression="gzip")
        def row(table, i):
            return [None if pd.isna(v) else (v.item() if hasattr(v, "item") else v) for v in table.iloc[i]]
        for f in layout.get(suffix="physio", extension=".tsv.gz"):
            meta, entities, table = f.get_metadata(), f.get_entities(), read(f)
            found.append({"subject": entities["subject"], "run": entities["run"], "recording": entities["recording"],
                          "eye": meta["RecordedEye"], "rows": len(table), "columns": list(table.columns),
                          "first": row(table, 0), "last": row(table, -1)})
        fixations = {}
        for f in layout.get(suffix="physioevents", extension=".tsv.gz"):
            table = read(f)
            fixations[f.get_entities()["subject"]] = int((table["trial_type"] == "fixation").sum())
        print(json.dumps({"physio": found, "fixations": fixations}))
        """
}

/// `gazerec export --format bids`: a recorded and an imported session into a dataset that tools
/// nobody here wrote accept and read back, re-exports that add runs, and the refusals.
@Suite("gazerec export --format bids")
struct BIDSExportCommandTests {
    static let iosID = "3BE54760-F1E8-4799-A3CB-78806270E72A"
    /// The iPad 7th generation's display (10.2 in, 834 × 1194 points) seen from 40 cm.
    static let iPadScreen = ["--screen-size-mm", "155x217", "--distance-mm", "400"]

    /// Every regular file under `root`, relative path → bytes.
    static func files(_ root: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for relative in try FileManager.default.subpathsOfDirectory(atPath: root) {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: "\(root)/\(relative)", isDirectory: &isFolder), !isFolder.boolValue else { continue }
            files[relative] = try Data(contentsOf: URL(fileURLWithPath: "\(root)/\(relative)"))
        }
        return files
    }

    static func number(_ value: JSONValue?) -> Double? { if case .number(let n)? = value { return n }; return nil }

    @Test("a recorded and an imported session: the validator finds no error, pybids reads back the samples, a re-export with --again adds run 2",
          .enabled(if: BIDSCheckTools.ready, BIDSCheckTools.reason))
    func recordedAndImported() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        // Given a session recorded from a clip (never calibrated: the eyes only), with two markers, and the iOS export
        let recorded = try Binary.run(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--as-fast-as-possible",
                                       "--calibration", "none", "--app-id", "reading-study 01", "--markers-from", "-"],
                                      environment: ["GAZEREC_DATABASE": work.database],
                                      stdin: Data("trial 1\ntrial 2\t{\"n\":2}\n".utf8))
        try #require(recorded.status == 0, "\(recorded.stderr)")
        let session = recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try work.run(["import", Fixtures.iosSession]).status == 0)
        let root = work.folder.path("dataset")

        // When both are exported, the recorded one's subject from its app id
        let first = try work.run(["export", "--format", "bids", root, session, "--subject-from", "app-id", "--task", "reading"])
        #expect(first.status == 0, "\(first.stderr)")
        let ios = try work.run(["export", "--format", "bids", root, "3be54760", "--subject", "02", "--task", "reading"]
                               + Self.iPadScreen)
        #expect(ios.status == 0, "\(ios.stderr)")
        // Then stdout lists the files written, and the validator finds no error in the dataset (and warns only
        // about what the researcher adds)
        let firstFiles = first.stdout.split(separator: "\n").map(String.init)
        #expect(firstFiles.contains("sub-readingstudy01/beh/sub-readingstudy01_task-reading_run-1_recording-eye1_physio.tsv.gz"))
        // (recorded without --expressions: no expression file)
        #expect(!firstFiles.contains { $0.contains("recording-expressions") }, "\(firstFiles)")
        #expect(ios.stdout.split(separator: "\n").contains("sub-02/beh/sub-02_task-reading_run-1_recording-eye1_physio.tsv.gz"))
        // (the iPad's sidecar names the system that recorded it, not gazerec)
        let iosSidecar = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath:
            "\(root)/sub-02/beh/sub-02_task-reading_run-1_recording-eye1_physio.json"))))
        #expect(iosSidecar["SoftwareVersions"] == .string("iOS 13.5.1") && iosSidecar["Manufacturer"] == nil)
        #expect(iosSidecar["ScreenSize"] == .array([.number(0.155), .number(0.217)]) && iosSidecar["ScreenDistance"] == .number(0.4))
        let issues = try BIDSCheckTools.validationIssues(root)
        #expect(issues.isEmpty, "\(issues.joined(separator: "\n"))")

        // and pybids finds the recordings, whose counts and first and last values are the sessions' export's
        let read = try Binary.runProcess(BIDSCheckTools.python, ["-c", BIDSCheckTools.reader, root])
        try #require(read.status == 0, "\(read.stderr)")
        let found = try JSONValue.parse(Array(read.stdoutData))
        let physio = found["physio"]?.arrayValue ?? []
        #expect(physio.map { $0["eye"] } == [.string("cyclopean"), .string("left"), .string("right")])
        try Self.expectFramesRoundTrip(physio.filter { $0["subject"] == .string("readingstudy01") }, work: work, session: session)
        try Self.expectGazeRoundTrip(physio.first { $0["subject"] == .string("02") }, work: work)
        // The fixations are those of 'gazerec fixations' with the same screen
        let fixations = try work.run(["fixations", Self.iosID, "--format", "json"] + Self.iPadScreen)
        #expect(found["fixations"]?["02"] == .number(Double(try JSONValue.parse(Array(fixations.stdoutData)).arrayValue?.count ?? -1)))

        // When the recorded session is exported again (asked for) as the same subject and task
        let before = try Self.files(root)
        let again = try work.run(["export", "--format", "bids", root, session, "--subject", "readingstudy01", "--task", "reading",
                                  "--again"])
        #expect(again.status == 0, "\(again.stderr)")
        // Then it is run 2, and every file already there is unchanged but the subject's scans.tsv, which gained rows
        let added = again.stdout.split(separator: "\n").map(String.init)
        #expect(!added.isEmpty && added.allSatisfy { $0.contains("_run-2_") } && Set(added).isDisjoint(with: before.keys))
        let after = try Self.files(root)
        let scans = "sub-readingstudy01/sub-readingstudy01_scans.tsv"
        for (name, bytes) in before where name != scans { #expect(after[name] == bytes, "\(name) changed") }
        #expect(after[scans].map { $0.starts(with: before[scans]!) } == true)
        #expect(Set(after.keys) == Set(before.keys).union(added))
        #expect(try BIDSCheckTools.validationIssues(root).isEmpty)
    }

    /// The eyes' files: one row per stored frame, first and last rows the frames' per-eye values.
    static func expectFramesRoundTrip(_ files: [JSONValue], work: Workspace, session: String) throws {
        let exported = try JSONValue.parse(Array(try work.run(["export", session]).stdoutData))
        let frames = try #require(exported["gazerec"]?["frames"]?.arrayValue)
        let begin = try #require(number(exported["beginTime"]))
        #expect(files.map { $0["eye"] } == [.string("left"), .string("right")])
        for file in files {
            let eye = file["eye"] == .string("left") ? "Left" : "Right"
            #expect(file["rows"] == .number(Double(frames.count)))
            for (row, frame) in [(file["first"], frames.first!), (file["last"], frames.last!)] {
                let cells = try #require(row?.arrayValue)
                let time = try #require(number(cells.first)), stamp = try #require(number(frame["timestamp"]))
                #expect(abs(time - (stamp - begin)) <= 0.6e-6)
                let expected = ["pupil\(eye)U", "pupil\(eye)V", "openness\(eye)"].map { frame[$0] ?? .null }
                #expect(Array(cells[1...3]) == expected, "\(eye): \(cells) against \(frame)")
            }
        }
    }

    /// The gaze file: one row per scan-path sample, first and last rows the samples' times and positions.
    static func expectGazeRoundTrip(_ file: JSONValue?, work: Workspace) throws {
        let exported = try JSONValue.parse(Array(try work.run(["export", iosID]).stdoutData))
        let samples = try #require(exported["scanPath"]?.arrayValue)
        let begin = try #require(number(exported["beginTime"]))
        #expect(file?["rows"] == .number(Double(samples.count)))
        for (row, sample) in [(file?["first"], samples.first!), (file?["last"], samples.last!)] {
            let cells = try #require(row?.arrayValue)
            #expect(abs(try #require(number(cells.first)) - (try #require(number(sample["timestamp"])) - begin)) <= 0.6e-6)
            #expect(Array(cells[1...2]) == [sample["x"] ?? .null, sample["y"] ?? .null])
        }
    }

    @Test("refusals: a bad label, no task, no subject, a file as the folder, gaze without the screen's size; one line each, nothing written",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func refusals() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        #expect(try work.run(["import", Fixtures.iosSession]).status == 0)
        // and a copy of it whose app id has no letter or digit to make a subject label of
        let punctuation = work.folder.path("punctuation.json")
        let text = try String(contentsOfFile: Fixtures.iosSession, encoding: .utf8)
            .replacingOccurrences(of: "\"ios-eye-tracking-example\"", with: "\"- -\"")
            .replacingOccurrences(of: Self.iosID, with: "0A1B2C3D-0000-4000-8000-000000000001")
        try text.write(toFile: punctuation, atomically: true, encoding: .utf8)
        #expect(try work.run(["import", punctuation]).status == 0)
        let root = work.folder.path("dataset")
        let file = work.folder.path("file.txt")
        try Data("not a folder\n".utf8).write(to: URL(fileURLWithPath: file))
        let id = Self.iosID
        let cases: [([String], String)] = [
            ([root, id, "--subject", "sub-01", "--task", "reading"] + Self.iPadScreen, "invalid BIDS subject label 'sub-01'"),
            ([root, id, "--subject", "01", "--task", "read ing"] + Self.iPadScreen, "invalid BIDS task label 'read ing'"),
            ([root, id, "--subject", "01", "--session-label", "a_b", "--task", "x"] + Self.iPadScreen, "(--session-label)"),
            ([root, id, "--subject", "01"] + Self.iPadScreen, "no BIDS task given: give it with --task LABEL"),
            ([root, id, "--task", "reading"] + Self.iPadScreen, "no BIDS subject given"),
            ([root, id, "--subject", "01", "--subject-from", "app-id", "--task", "reading"], "given together"),
            ([root, "--subject", "01", "--task", "reading"], "no session named after the dataset folder"),
            ([file, id, "--subject", "01", "--task", "reading"] + Self.iPadScreen, "it is a file, not a folder"),
            ([root, id, "--subject", "01", "--task", "reading", "--pretty"] + Self.iPadScreen, "apply to JSON and CSV"),
            ([root, id, "--subject", "01", "--task", "reading", "--distance-mm", "400"], "go together"),
            // The iPad's gaze, on a screen whose size and distance nobody gave
            ([root, id, "--subject", "01", "--task", "reading"], "--screen-size-mm WxH and --distance-mm MM; nothing was written"),
            // Two sessions, the second's app id without a letter or digit: the first is not written either
            ([root, id, "0a1b2c3d", "--subject-from", "app-id", "--task", "reading"] + Self.iPadScreen,
             "has the app id '- -', which holds no ASCII letter or digit"),
        ]
        for (arguments, message) in cases {
            let result = try work.run(["export", "--format", "bids"] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stdout.isEmpty, "\(arguments): \(result.stderr)")
        }
        let json = try work.run(["export", id, "--task", "reading"])
        #expect(json.status == 64 && json.stderr.contains("apply to --format bids only"), "\(json.stderr)")
        let unknown = try work.run(["export", "--format", "bids", root, "00000000", "--subject", "01", "--task", "reading"])
        #expect(unknown.status == 66 && unknown.stderr.contains("gazerec list"), "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "not a folder\n")
    }
}

@Suite("BIDS export of a session already in the dataset")
struct BIDSAlreadyExportedTests {
    @Test("a second export skips the session and names its run, exporting the others; --again adds a new run",
          .enabled(if: BIDSCheckTools.ready, BIDSCheckTools.reason))
    func skippedUnlessAgain() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let first = try work.storeSession(samples: 300)
        let root = work.folder.path("dataset")
        let options = ["--subject", "02", "--task", "reading"] + BIDSExportCommandTests.iPadScreen
        // Given a dataset that holds the first session as run 1
        let initial = try work.run(["export", "--format", "bids", root, first] + options)
        try #require(initial.status == 0, "\(initial.stderr)")
        let second = try work.storeSession(samples: 200)
        let before = try BIDSExportCommandTests.files(root)

        // When both sessions are exported into it
        let both = try work.run(["export", "--format", "bids", root, first, second] + options)
        // Then the first is skipped with one line naming its run, the second becomes run 2, and exit is 0
        #expect(both.status == 0, "\(both.stderr)")
        let skipLines = both.stderr.split(separator: "\n").filter { $0.contains("already in the dataset") }
        #expect(skipLines.count == 1 && skipLines[0].contains(first)
                && skipLines[0].contains("sub-02/beh/sub-02_task-reading_run-1"), "\(both.stderr)")
        let added = both.stdout.split(separator: "\n").map(String.init)
        #expect(!added.isEmpty && added.allSatisfy { $0.contains("_run-2_") }, "\(added)")
        let sidecar = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath:
            "\(root)/sub-02/beh/sub-02_task-reading_run-2_recording-eye1_physio.json"))))
        #expect(sidecar["GazerecSessionID"] == .string(second))

        // When both are exported once more: nothing is written, and both runs are named
        let afterSecond = try BIDSExportCommandTests.files(root)
        let neither = try work.run(["export", "--format", "bids", root, first, second] + options)
        #expect(neither.status == 0 && neither.stdout.isEmpty, "\(neither.stderr)")
        #expect(neither.stderr.contains("run-1") && neither.stderr.contains("run-2"), "\(neither.stderr)")
        #expect(try BIDSExportCommandTests.files(root) == afterSecond)
        #expect(Set(afterSecond.keys).isSuperset(of: before.keys))

        // When the first is exported with --again: it is added as run 3
        let again = try work.run(["export", "--format", "bids", root, first, "--again"] + options)
        #expect(again.status == 0, "\(again.stderr)")
        let third = again.stdout.split(separator: "\n").map(String.init)
        #expect(!third.isEmpty && third.allSatisfy { $0.contains("_run-3_") }, "\(third)")
        #expect(try BIDSCheckTools.validationIssues(root).isEmpty)
    }
}

@Suite("BIDS export onto a full disk")
struct BIDSFullDiskTests {
    /// The files of runs in the dataset's subject folder (hidden scratch folders included).
    static func runFiles(_ root: String) -> [String] {
        (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).filter { $0.contains("_run-") || $0.contains(".gazerec-run-") }
    }

    @Test("a run that cannot be written whole leaves none of its files; the export after adds run 1, whole")
    func wholeOrNothing() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let id = try work.storeSession(samples: 60_000)
        let root = work.folder.path("dataset")
        // A file-size limit of 64 KiB: the small files fit, the scan path's table does not, as on a disk
        // that fills up partway (SIGXFSZ ignored, so the write fails with an error).
        let arguments = ["export", "--format", "bids", root, id, "--subject", "02", "--task", "reading"]
            + BIDSExportCommandTests.iPadScreen
        let full = try Binary.runProcess("/bin/bash", ["-c", "trap '' XFSZ; ulimit -f 64; exec \"$GAZEREC\" \"$@\"", "bash"] + arguments,
                                         environment: ["GAZEREC_DATABASE": work.database, "GAZEREC": Binary.gazerec])
        #expect(full.status == 1 && full.stderr.contains("physio.tsv.gz"), "\(full.stderr)")
        #expect(Self.runFiles(root).isEmpty, "\(Self.runFiles(root))")

        let again = try work.run(arguments)
        #expect(again.status == 0, "\(again.stderr)")
        let files = Self.runFiles(root)
        #expect(files.contains("sub-02/beh/sub-02_task-reading_run-1_recording-eye1_physio.tsv.gz"), "\(files)")
        #expect(!files.contains { $0.contains("run-2") || $0.contains(".gazerec-run-") }, "\(files)")
    }
}

@Suite("BIDS export of a session recorded with expressions")
struct BIDSExpressionExportTests {
    static let ready = BIDSCheckTools.ready && ExpressionCommandTests.installed
    static let reason: Comment = """
        needs ../shared/fixtures, the dlib model, the BIDS validator and pybids (Scripts/setup-bids.sh) \
        and the expression model (Scripts/setup-expressions.sh)
        """

    /// pybids finds the run's expression recording and pandas reads it by the columns its sidecar
    /// names: its entities, its sidecar and every row.
    static let reader = """
        import json, sys
        import pandas as pd
        from bids import BIDSLayout
        layout = BIDSLayout(sys.argv[1], validate=True)
        files = layout.get(suffix="physio", extension=".tsv.gz", recording="expressions", run=int(sys.argv[2]))
        f = files[0]
        meta = f.get_metadata()
        table = pd.read_csv(f.path, sep="\\t", header=None, names=meta["Columns"], na_values="n/a", keep_default_na=False,
                            compression="gzip")
        rows = [[None if pd.isna(v) else float(v) for v in row] for row in table.itertuples(index=False)]
        print(json.dumps({"files": len(files), "entities": {k: str(v) for k, v in f.get_entities().items()},
                          "meta": {k: meta[k] for k in ["PhysioType", "SamplingFrequency", "StartTime", "Columns", "GazerecSessionID"]},
                          "rows": rows}))
        """

    static func number(_ value: JSONValue?) -> Double? { BIDSExportCommandTests.number(value) }

    @Test("start --expressions, then export --format bids: a recording-expressions file the validator finds no error in, whose rows are the export's expression samples (JSON and CSV) with their frames' smile; skipped when exported again, a new run with --again",
          .enabled(if: ready, reason))
    func recordedWithExpressions() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        // Given a session recorded from a clip with expressions (never calibrated: the eyes and the face)
        let recorded = try work.run(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--as-fast-as-possible",
                                     "--calibration", "none", "--expressions"])
        try #require(recorded.status == 0, "\(recorded.stderr)")
        let session = recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let root = work.folder.path("dataset")

        // When it is exported as BIDS
        let exported = try work.run(["export", "--format", "bids", root, session, "--subject", "01", "--task", "faces"])
        #expect(exported.status == 0, "\(exported.stderr)")
        // Then its run has the expression pair beside the eyes', and the validator finds no error
        let name = "sub-01/beh/sub-01_task-faces_run-1_recording-expressions_physio"
        let files = exported.stdout.split(separator: "\n").map(String.init)
        #expect(files.contains(name + ".tsv.gz") && files.contains(name + ".json") && files.contains { $0.contains("eye2_physio") })
        let issues = try BIDSCheckTools.validationIssues(root)
        #expect(issues.isEmpty, "\(issues.joined(separator: "\n"))")

        // and pybids reads it, each row the session's exported sample: time, the seven probabilities, the frame's smile
        let read = try Binary.runProcess(BIDSCheckTools.python, ["-c", Self.reader, root, "1"])
        try #require(read.status == 0, "\(read.stderr)")
        let found = try JSONValue.parse(Array(read.stdoutData))
        #expect(found["files"] == .number(1) && found["entities"]?["recording"] == .string("expressions"))
        #expect(found["meta"]?["PhysioType"] == .string("generic") && found["meta"]?["GazerecSessionID"] == .string(session))
        try Self.expectRowsMatchExport(found, work: work, session: session)

        // When it is exported again: skipped, its run named (found by the sidecars); with --again it is run 2, whole
        let before = try BIDSExportCommandTests.files(root)
        let skipped = try work.run(["export", "--format", "bids", root, session, "--subject", "01", "--task", "faces"])
        #expect(skipped.status == 0 && skipped.stdout.isEmpty, "\(skipped.stderr)")
        #expect(skipped.stderr.contains("already in the dataset as sub-01/beh/sub-01_task-faces_run-1"), "\(skipped.stderr)")
        #expect(try BIDSExportCommandTests.files(root) == before)
        let again = try work.run(["export", "--format", "bids", root, session, "--subject", "01", "--task", "faces", "--again"])
        #expect(again.status == 0, "\(again.stderr)")
        let added = again.stdout.split(separator: "\n").map(String.init)
        #expect(added == files.map { $0.replacingOccurrences(of: "_run-1_", with: "_run-2_") })
        let after = try BIDSExportCommandTests.files(root)
        for (file, bytes) in before where !file.hasSuffix("_scans.tsv") { #expect(after[file] == bytes, "\(file) changed") }
        #expect(try BIDSCheckTools.validationIssues(root).isEmpty)
    }

    /// The expression file read by pandas against the session's JSON export (its expression samples
    /// and smile shapes) and its CSV export (the expression columns): row for row, value for value.
    static func expectRowsMatchExport(_ found: JSONValue, work: Workspace, session: String) throws {
        let exported = try JSONValue.parse(Array(try work.run(["export", session]).stdoutData))
        let samples = try #require(exported["gazerec"]?["expressions"]?.arrayValue)
        let begin = try #require(number(exported["beginTime"]))
        let names = ["neutral", "happy", "surprise", "sad", "angry", "disgust", "fear"]
        var shapes: [Double: [Double]] = [:]
        for shape in ["mouthSmile_L", "mouthSmile_R"] {
            for value in exported["blendShapes"]?[shape]?.arrayValue ?? [] {
                shapes[try #require(number(value["timestamp"])), default: []].append(try #require(number(value["value"])))
            }
        }
        let rows = try #require(found["rows"]?.arrayValue)
        #expect(rows.count == samples.count && samples.count > 100, "\(rows.count) rows, \(samples.count) samples")
        #expect(found["meta"]?["StartTime"] == rows.first?.arrayValue?.first)
        var byTime: [Double: [Double]] = [:]
        for (row, sample) in zip(rows, samples) {
            let cells = try #require(row.arrayValue)
            let time = try #require(number(sample["timestamp"]))
            byTime[time] = names.compactMap { number(sample[$0]) }
            #expect(abs(try #require(number(cells[0])) - (time - begin)) <= 0.6e-6)
            #expect(Array(cells[1...7]) == names.map { sample[$0] ?? .null })
            let smile = shapes[time].map { $0.reduce(0, +) / Double($0.count) }
            #expect(number(cells[8]) == smile && smile != nil, "\(time)")
        }
        // The CSV's expression columns hold the same values on the same rows
        let csv = try work.run(["export", session, "--format", "csv"]).stdout.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let columns = names.map { "expression" + $0.prefix(1).uppercased() + $0.dropFirst() + "Probability" }
        let indices = try columns.map { try #require(csv[0].firstIndex(of: $0)) }
        let time = try #require(csv[0].firstIndex(of: "timestampSeconds"))
        let filled = csv.dropFirst().filter { !$0[indices[0]].isEmpty }
        #expect(filled.count == samples.count)
        for line in filled {
            #expect(indices.map { Double(line[$0]) } == byTime[Double(line[time]) ?? -1]?.map { Optional($0) }, "\(line)")
        }
    }
}
