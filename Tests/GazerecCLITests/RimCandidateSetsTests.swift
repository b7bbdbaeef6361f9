import Foundation
import GazeCalibration
import GazeModel
import JSONStream
import Testing
import TestSupport

/// The candidate sets for round rims and a hand at the chin (`patchesNoseFrame`,
/// `appearanceNoseFrame`, `patchContrast`, `appearanceContrast`, `patchInner`) on the real clip's stored frames.
@Suite("Candidate sets for rims and hands on real frames", .serialized)
struct RimCandidateSetsTests {
    static let sets: [GazeFeatureSet] = [.patchesNoseFrame, .appearanceNoseFrame, .patchContrast, .appearanceContrast, .patchInner]

    func gazerec(_ arguments: [String], database: String) throws -> CommandResult {
        try Binary.run(arguments, environment: ["GAZEREC_DATABASE": database])
    }

    /// Mean and standard deviation of `values`.
    func moments(_ values: ArraySlice<Double>) -> (mean: Double, deviation: Double) {
        let mean = values.reduce(0, +) / Double(values.count)
        return (mean, (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot())
    }

    /// What a sane frame of each candidate shows, beside what `patches` reads from it.
    func expectSane(_ set: GazeFeatureSet, _ values: [Double], _ patches: [Double]) {
        #expect(values.count == set.featureCount && values.allSatisfy(\.isFinite), "\(set)")
        switch set {
        case .patchesNoseFrame, .appearanceNoseFrame:
            // The nostrils lie level with the eyes (within 25°) and closer together than the eyes;
            // the tip sits above the base's centre, within a nostril distance across
            #expect(abs(values[0] - patches[0]) < 25 && values[1] > 0.1 * patches[1] && values[1] < patches[1], "\(values.prefix(6))")
            #expect(abs(values[4]) < 1 && values[5] < 0 && values[5] > -2, "\(values.prefix(6))")
            #expect(Array(values.suffix(256)) == Array(patches.suffix(256)))
        default:
            // The head as `patches` reads it, then each eye's filtered patch normalised
            #expect(Array(values.prefix(6)) == Array(patches.prefix(6)))
            let perEye = set == .patchInner ? 72 : 128, start = values.count - 2 * perEye
            for eye in 0..<2 {
                let (mean, deviation) = moments(values[(start + eye * perEye)..<(start + (eye + 1) * perEye)])
                #expect(abs(mean) < 1e-9 && (abs(deviation - 1) < 1e-9 || deviation < 1), "\(set) eye \(eye): \(mean), \(deviation)")
            }
        }
    }

    @Test("real frames: each candidate reads every usable frame alike twice with sane values, fits alone, and a session recorded with it recalibrates to the same bits",
          .enabled(if: CalibrateCommandTests.ready, CalibrateCommandTests.reason))
    func realFrames() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        // Given the frames `gazerec calibrate` stored for cap12_edit's head turns
        let (_, document) = try PreferredSetTests().calibrated(folder, database: database)
        let record = try CalibrationRecord(document: Array(document.utf8), source: "real")
        let frames = record.samples.map(\.features).filter { CalibrationFitter.isUsable($0, for: .patches) }
        try #require(frames.count > 100, "\(frames.count) usable frames")
        let points = record.targets.enumerated().filter { $0.element.kind == .calibration }.map { index, target in
            CalibrationPointSamples(target: target.position, samples: record.samples.filter { $0.target == index }.map(\.features))
        }
        for set in Self.sets {
            // Then every frame `patches` reads, the candidate reads too, the same twice, sanely
            for frame in frames {
                let values = try #require(set.rawFeatures(frame), "\(set)")
                #expect(set.rawFeatures(frame) == values)
                expectSane(set, values, GazeFeatureSet.patches.rawFeatures(frame)!)
            }
            // And alone it fits the clip's targets
            let mapping = try CalibrationFitter { $0.minimumSamplesPerPoint = 6; $0.featureSets = [set]; $0.preferredSet = nil }
                .fit(points).mapping
            #expect(mapping.featureSet == set)
            try expectRecalibratesAlike(record, mapping, folder: folder, database: database)
        }
    }

    static let bench = URL(fileURLWithPath: Binary.gazerec).deletingLastPathComponent().appendingPathComponent("gazerec-bench").path
    static var benchReady: Bool { CalibrateCommandTests.ready && FileManager.default.isExecutableFile(atPath: bench) }

    @Test("the robustness bench on a portrait: a copy that is the same file moves no landmark; another face under the same name moves them",
          .enabled(if: benchReady, "needs ../shared/fixtures, the dlib model and gazerec-bench beside gazerec"))
    func robustnessBenchSmoke() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Given a folder with one portrait, the same folder as one copy, and another face under its name as a second
        for (name, source) in [("clean", "faces/sergey.png"), ("other", "faces/astronaut.png")] {
            try FileManager.default.createDirectory(atPath: folder.path(name), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Fixtures.path(source), toPath: folder.path("\(name)/face.png"))
        }
        let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/bench_feature_robustness.py").path
        // When the script compares them
        let result = try Binary.runProcess("/usr/bin/env", ["python3", script, folder.path("clean"), "--bench", Self.bench,
                                                            "--model", CalibrateCommandTests.modelPath,
                                                            "--copy", "same=\(folder.path("clean"))", "--copy", "other=\(folder.path("other"))"])
        try #require(result.status == 0, "\(result.stderr)")
        // Then the same file's corners move by nothing, the other face's by a good part of an eye's width
        func cornersOffset(_ copy: String) -> Double? {
            let lines = result.stdout.components(separatedBy: "\n")
            guard let start = lines.firstIndex(where: { $0.hasPrefix("\(copy): landmarks") }),
                  let row = lines[start...].first(where: { $0.hasPrefix("  corners ") }) else { return nil }
            return Double(row.split(separator: " ")[1])
        }
        #expect(cornersOffset("same") == 0, "\(result.stdout)")
        #expect((cornersOffset("other") ?? 0) > 10, "\(result.stdout)")
    }

    /// A calibration holding `mapping` stored, a session recorded with it, and recalibrated with it:
    /// the same scan path, bit for bit.
    func expectRecalibratesAlike(_ record: CalibrationRecord, _ mapping: GazeMapping, folder: TemporaryFolder,
                                 database: String) throws {
        var stored = record
        stored.id = UUID().uuidString
        stored.mapping = mapping
        let file = folder.path("\(mapping.featureSet.rawValue).json")
        try stored.document().write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try gazerec(["calibrations", "import", file], database: database).status == 0)
        let start = try gazerec(["start", "--input", Fixtures.path("video/cap12_headturns_20s.mp4"), "--as-fast-as-possible",
                                 "--calibration", stored.id], database: database)
        try #require(start.status == 0, "\(start.stderr)")
        let session = start.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let live = try JSONValue.parse(Array(try gazerec(["export", session], database: database).stdout.utf8))
        #expect((live["scanPath"]?.arrayValue?.count ?? 0) > 400, "\(mapping.featureSet)")
        #expect(try gazerec(["recalibrate", session, "--calibration", stored.id], database: database).status == 0)
        let again = try JSONValue.parse(Array(try gazerec(["export", session], database: database).stdout.utf8))
        #expect(again["scanPath"] == live["scanPath"], "\(mapping.featureSet)")
    }
}
