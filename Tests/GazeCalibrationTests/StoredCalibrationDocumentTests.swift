import Foundation
import GazeModel
import JSONStream
import SessionStore
import Testing
import TestSupport
@testable import GazeCalibration

/// Calibration documents read through the keys they are written with: documents stored by earlier
/// versions read as they always did, and each damaged member is named by its JSON path.
@Suite("Stored calibration documents")
struct StoredCalibrationDocumentTests {
    /// The calibration a database of schema 3 holds (written by gazerec 0.1.0, before the head-pose
    /// model was named), copied out of the repository's schema history.
    func storedDocument() throws -> String {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let copy = folder.path("v3.sqlite")
        try FileManager.default.copyItem(atPath: Fixtures.repositoryRoot.appendingPathComponent("Tests/SessionStoreTests/Schemas/v3-calibrations.sqlite").path,
                                         toPath: copy)
        return try SessionDatabase(path: copy).calibration(id: "C0FFEE00-0000-4000-8000-000000000003").document
    }

    @Test("a document stored by an earlier version reads whole and writes back the same bytes, the head-pose model it lacked named")
    func earlierDocument() throws {
        let stored = try storedDocument()
        let record = try CalibrationRecord(document: Array(stored.utf8), source: "v3")
        #expect(record.headPoseModel == HeadPoseModelName.sixPoint)
        #expect(record.targets.count == 7 && record.samples.count > 100, "\(record.targets.count) targets, \(record.samples.count) samples")
        // Writing adds only the member the earlier version did not write, at its place in `source`.
        let resolution = try #require(stored.range(of: #""resolution":\[[0-9]+,[0-9]+\]"#, options: .regularExpression))
        var expected = stored
        expected.insert(contentsOf: #","headPoseModel":"sixPoint""#, at: resolution.upperBound)
        #expect(try record.document() == expected)
        // And that document reads back to the same record.
        let again = try CalibrationRecord(document: Array(expected.utf8), source: "again")
        #expect(try again.document() == expected)
        #expect(again.mapping == record.mapping && again.samples == record.samples && again.targets == record.targets)
    }

    @Test("a damaged member is named by its JSON path, nested ones included", arguments: [
        (#""kind":"validation""#, #""kind":"neither""#, "targets[5].kind: expected 'calibration' or 'validation'"),
        (#""screen":{"#, #""screen":1,"old":{"#, "screen: missing object"),
        (#""mode":"scripted""#, #""mode":7"#, "procedure.mode: expected a string"),
        (#""trackingNormal":true"#, #""trackingNormal":1"#, "samples[0].trackingNormal: expected true or false"),
        (#""ridgePenalty":"#, #""ridgePenalty":"x","was":"#, "model.ridgePenalty: expected a number"),
        (#""resolution":[400,300]"#, #""resolution":[400]"#, "source.resolution: expected 2 numbers, got 1"),
    ])
    func damagedMember(original: String, damaged: String, message: String) throws {
        let stored = try storedDocument()
        let range = try #require(stored.range(of: original), "the stored document has no \(original)")
        let text = stored.replacingCharacters(in: range, with: damaged)
        #expect {
            _ = try CalibrationRecord(document: Array(text.utf8), source: "damaged.json")
        } throws: { error in
            "\(error)" == "cannot read damaged.json: \(message)."
        }
    }
}
