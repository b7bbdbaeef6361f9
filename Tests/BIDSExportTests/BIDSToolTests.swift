import BIDSExport
import Foundation
import GazeModel
import JSONStream
import Testing
import TestSupport

/// The tools nobody here wrote that check an export: the BIDS schema validator and pybids, installed
/// by Scripts/setup-bids.sh in .build-bids/venv.
enum BIDSTools {
    static let bin = Fixtures.repositoryRoot.appendingPathComponent(".build-bids/venv/bin")
    static var validator: String { bin.appendingPathComponent("bids-validator-deno").path }
    static var python: String { bin.appendingPathComponent("python").path }

    static var installed: Bool {
        FileManager.default.isExecutableFile(atPath: validator) && FileManager.default.isExecutableFile(atPath: python)
    }

    static let missingReason: Comment =
        "the BIDS validator and pybids are not installed in .build-bids/venv (Scripts/setup-bids.sh installs them; it said why it could not)"

    /// A recording without gaze (never calibrated) and without the screen's size: the eyes only.
    static let uncalibrated: BIDSRecording = {
        var recording = ConstructedRecording.make(seconds: 5, seed: 23)
        recording.gaze = []
        recording.fixations = []
        recording.calibration = nil
        recording.geometry = nil
        return recording
    }()

    /// A dataset with three subjects: two runs of one, with a session label, one run of another,
    /// and an uncalibrated run of a third.
    static func writeDataset(at root: String) throws -> [BIDSRun] {
        let dataset = BIDSDataset(rootPath: root)
        let first = try BIDSRunLabels(subject: "01", session: "lab1", task: "reading")
        return [try dataset.add(ConstructedRecording.make(), as: first),
                try dataset.add(ConstructedRecording.make(seconds: 8, seed: 11), as: first),
                try dataset.add(ConstructedRecording.make(seconds: 6, seed: 3), as: try BIDSRunLabels(subject: "02", task: "reading")),
                try dataset.add(uncalibrated, as: try BIDSRunLabels(subject: "03", task: "reading"))]
    }
}

@Suite("BIDS export checked by tools nobody here wrote", .enabled(if: BIDSTools.installed, BIDSTools.missingReason))
struct BIDSToolTests {
    /// The issues the schema validator reports (code and severity), every row of every table checked.
    static func validate(_ root: String) throws -> [(code: String, severity: String, location: String)] {
        let result = try Binary.runProcess(BIDSTools.validator, ["--format", "json", "--max-rows", "-1", root],
                                           environment: ["NO_COLOR": "1", "DENO_NO_UPDATE_CHECK": "1"])
        let document = try JSONValue.parse(Array(result.stdoutData), name: "validator output")
        let issues = document["issues"]?["issues"]?.arrayValue ?? []
        return issues.map { issue in
            func text(_ key: String) -> String { if case .string(let value)? = issue[key] { return value }; return "" }
            return (text("code") + (text("subCode").isEmpty ? "" : "/" + text("subCode")), text("severity"), text("location"))
        }
    }

    @Test("the BIDS schema validator finds no error in an export of four runs, and finds the error of a broken sidecar")
    func validatorFindsNoErrors() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = folder.path("dataset")
        let runs = try BIDSTools.writeDataset(at: root)
        let issues = try Self.validate(root)
        let errors = issues.filter { $0.severity == "error" }
        #expect(errors.isEmpty, "\(errors.map { "\($0.code) at \($0.location)" }.joined(separator: "\n"))")
        // Only the warnings docs/ExportFormat.md lists: what the researcher adds (authors, licence,
        // README, institution, task description), none about a file the export wrote wrongly.
        let warnings = Set(issues.filter { $0.severity == "warning" }.map(\.code))
        #expect(warnings.isSubset(of: BIDSValidatorWarnings.researcherAdds), "unlisted: \(warnings.subtracting(BIDSValidatorWarnings.researcherAdds).sorted())")
        #expect(issues.allSatisfy { $0.severity == "error" || $0.severity == "warning" })

        // Given the same dataset with RecordedEye, which BIDS requires of eye-tracking, taken out of one sidecar
        let sidecar = "\(root)/" + runs[0].files.first { $0.hasSuffix("eye1_physio.json") }!
        let document = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: sidecar))))
        guard case .object(let members) = document else { Issue.record("not an object: \(sidecar)"); return }
        try Data(JSONValue.object(members.filter { $0.0 != "RecordedEye" }).compactText.utf8).write(to: URL(fileURLWithPath: sidecar))
        // Then the validator reports it: it does check the eyetrack sidecars
        let broken = try Self.validate(root).filter { $0.severity == "error" }
        #expect(broken.contains { $0.code.hasSuffix("RecordedEye") && sidecar.replacingOccurrences(of: ".json", with: ".tsv.gz").hasSuffix($0.location) }, "\(broken)")
    }

    @Test("a run with expressions: the validator finds no error in its generic physio file (n/a smiles included), and does read that file")
    func validatorChecksExpressions() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = folder.path("dataset")
        let run = try BIDSDataset(rootPath: root).add(ConstructedRecording.withExpressions(ConstructedRecording.make(seconds: 4)),
                                                      as: try BIDSRunLabels(subject: "01", task: "reading"))
        let table = try #require(run.files.first { $0.hasSuffix("_recording-expressions_physio.tsv.gz") })
        let issues = try Self.validate(root)
        #expect(issues.allSatisfy { $0.severity == "warning" && BIDSValidatorWarnings.researcherAdds.contains($0.code) },
                "\(issues.map { "\($0.severity) \($0.code) at \($0.location)" })")

        // Given its sidecar naming one column fewer than the table has
        let sidecar = "\(root)/" + table.replacingOccurrences(of: ".tsv.gz", with: ".json")
        let document = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: sidecar))))
        guard case .object(let members) = document, let columns = document["Columns"]?.arrayValue else {
            Issue.record("no Columns in \(sidecar)")
            return
        }
        let fewer = members.map { $0.0 == "Columns" ? ($0.0, JSONValue.array(Array(columns.dropLast()))) : $0 }
        try Data(JSONValue.object(fewer).compactText.utf8).write(to: URL(fileURLWithPath: sidecar))
        // Then the validator reports an error at that table
        let broken = try Self.validate(root).filter { $0.severity == "error" }
        #expect(broken.contains { table.hasSuffix($0.location.trimmingCharacters(in: ["/"])) }, "\(broken)")
    }

    /// pybids indexes the dataset (with its own validation on) and pandas reads each physio file
    /// by the columns its sidecar names: what a researcher's script does.
    static let reader = """
        import json, sys
        import pandas as pd
        from bids import BIDSLayout
        layout = BIDSLayout(sys.argv[1], validate=True)
        found = []
        for f in layout.get(suffix="physio", extension=".tsv.gz"):
            meta, entities = f.get_metadata(), f.get_entities()
            table = pd.read_csv(f.path, sep="\\t", header=None, names=meta["Columns"], na_values="n/a",
                                keep_default_na=False, compression="gzip")
            def row(i):
                return [None if pd.isna(v) else (v.item() if hasattr(v, "item") else v) for v in table.iloc[i]]
            found.append({"subject": entities["subject"], "session": entities.get("session"), "run": entities["run"],
                          "recording": entities["recording"], "eye": meta["RecordedEye"], "rows": len(table),
                          "columns": list(table.columns), "first": row(0), "last": row(-1)})
        print(json.dumps(found))
        """

    @Test("pybids finds every recording and pandas reads back the sample counts and the first and last values")
    func readerRoundTrip() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = folder.path("dataset")
        _ = try BIDSTools.writeDataset(at: root)
        let result = try Binary.runProcess(BIDSTools.python, ["-c", Self.reader, root])
        #expect(result.status == 0, "\(result.stderr)")
        let found = try JSONValue.parse(Array(result.stdoutData)).arrayValue ?? []
        // Two runs of sub-01 (session lab1) and one of sub-02, each the gaze and both eyes; sub-03's eyes.
        #expect(found.count == 11)
        let recordings = [("01", 1, ConstructedRecording.make()), ("01", 2, ConstructedRecording.make(seconds: 8, seed: 11)),
                          ("02", 1, ConstructedRecording.make(seconds: 6, seed: 3)), ("03", 1, BIDSTools.uncalibrated)]
        for (subject, run, recording) in recordings {
            let files = found.filter { $0["subject"] == .string(subject) && $0["run"] == .number(Double(run)) }
            let eyes = (recording.gaze.isEmpty ? [] : ["cyclopean"]) + ["left", "right"]
            #expect(files.map { $0["eye"] } == eyes.map { .string($0) })
            #expect(files.first?["session"] == (subject == "01" ? .string("lab1") : .null))
            for file in files { Self.expectRoundTrip(file, recording) }
        }
    }

    /// The read file's row count and first and last rows equal the recording's samples (times to the microsecond).
    static func expectRoundTrip(_ file: JSONValue, _ recording: BIDSRecording) {
        func expectRow(_ row: JSONValue?, _ seconds: Double, _ values: [Double?]) {
            guard let cells = row?.arrayValue, case .number(let time)? = cells.first else { Issue.record("no row"); return }
            #expect(abs(time - (seconds - recording.beginSeconds)) <= 0.6e-6)
            #expect(Array(cells[1...values.count]) == values.map { $0.map(JSONValue.number) ?? .null }, "\(file)")
        }
        if file["eye"] == .string("cyclopean") {
            let gaze = recording.gaze
            #expect(file["rows"] == .number(Double(gaze.count)))
            expectRow(file["first"], gaze[0].timestampSeconds, [gaze[0].x, gaze[0].y])
            expectRow(file["last"], gaze.last!.timestampSeconds, [gaze.last!.x, gaze.last!.y])
        } else {
            let eye: Eye = file["eye"] == .string("left") ? .left : .right
            let frames = recording.frames
            #expect(file["rows"] == .number(Double(frames.count)))
            for frame in [frames[0], frames.last!] {
                expectRow(frame == frames[0] ? file["first"] : file["last"], frame.timestampSeconds,
                          [frame.pupil(eye)?.x, frame.pupil(eye)?.y, frame.openness(eye)])
            }
        }
    }
}
