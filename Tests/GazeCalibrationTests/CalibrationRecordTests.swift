import Foundation
import GazeCore
import GazeModel
import JSONStream
import Recorder
import SessionStore
import Testing
import TestSupport
@testable import GazeCalibration

/// A finished scripted procedure on constructed data, and its record.
func constructedRecord(seed: UInt64 = 1, geometry: Bool = true, name: String? = "p01") throws -> CalibrationRecord {
    let layout = CalibrationProcedure.layoutTargets(.nine, width: 1920, height: 1080)
    let targets = layout.enumerated().map { index, target in
        CalibrationTarget(kind: target.kind, position: target.position, startSeconds: Double(index),
                          endSeconds: Double(index) + 0.9)
    }
    let screen = ScreenGeometry(widthPoints: 1920, heightPoints: 1080, widthMillimetres: 527, heightMillimetres: 296,
                                distanceMillimetres: 600)
    var procedure = CalibrationProcedure(targets: targets, scripted: true, settleSeconds: 0.2,
                                         geometry: geometry ? screen : nil)
    var participant = ConstructedParticipant(generator: SeededGenerator(state: seed), pupilNoise: 0.001)
    var time = 0.0
    while !procedure.isDone && time < 30 {
        let target = targets.first { time >= $0.startSeconds! && time <= $0.endSeconds! }?.position ?? Point2(960, 540)
        var features = participant.samples(at: target, count: 1)[0]
        features.timestampSeconds = time
        procedure.frame(features, faceFound: true, timeSeconds: time)
        time += 1.0 / 30
    }
    let outcome = try #require(procedure.outcome)
    return CalibrationRecord(name: name, createdAtSeconds: 1_790_000_000.25, screenWidth: 1920, screenHeight: 1080,
                             geometry: geometry ? screen : nil, sourceKind: "file", sourceName: "constructed.mp4",
                             sourceWidth: 640, sourceHeight: 480, procedure: procedure, outcome: outcome,
                             gazerecVersion: "test")
}

@Suite("Calibration documents")
struct CalibrationDocumentTests {
    @Test("a record survives its JSON document bit for bit: same text, same mapping, same gaze")
    func roundTrip() throws {
        var record = try constructedRecord()
        record.focalLengthPixels = 612.5
        let text = try record.document()
        let back = try CalibrationRecord(document: Array(text.utf8), source: "test")
        #expect(try back.document() == text)
        #expect(back.focalLengthPixels == 612.5)
        #expect(back.mapping == record.mapping)
        #expect(back.validation == record.validation)
        #expect(back.samples == record.samples)
        #expect(back.targets.count == 13 && back.calibrationPointCount == 9)
        var participant = ConstructedParticipant(generator: SeededGenerator(state: 99))
        for sample in participant.samples(at: Point2(500, 700), count: 5) {
            #expect(back.mapping.map(sample) == record.mapping.map(sample))
        }
        // Pretty printing is the same value
        #expect(try JSONValue.parse(Array(try record.document(pretty: true).utf8)) == record.jsonValue)
    }

    @Test("degrees appear only with a viewing geometry")
    func degreesNeedGeometry() throws {
        let plain = try constructedRecord(geometry: false, name: nil).jsonValue
        #expect(plain["validation"]?["accuracyDegrees"] == nil)
        #expect(plain["screen"]?["distanceMillimetres"] == nil)
        #expect(plain["name"] == nil)
        let with = try constructedRecord().jsonValue
        if case .number(let degrees)? = with["validation"]?["accuracyDegrees"] {
            #expect(degrees > 0 && degrees < 1)
        } else {
            Issue.record("no accuracyDegrees in \(String(describing: with["validation"]))")
        }
    }

    @Test("a damaged document names the JSON path of what is wrong", arguments: [
        ("coefficientsX", "model.coefficientsX: expected 10 numbers, got 9"),
        ("kind", "model.kind: 'neuralNet' is not a mapping this gazerec applies"),
        ("width", "screen.width: expected a positive number"),
        ("hugeWidth", "screen.width: 1e+308 is beyond 1000000000"),
        ("version", "formatVersion: version 2 is not supported"),
        ("target", "samples[0].target: no target 99"),
    ])
    func damaged(damage: String, message: String) throws {
        var text = try constructedRecord().document()
        switch damage {
        case "coefficientsX":
            let range = try #require(text.range(of: #""coefficientsX":\[[^,]+,"#, options: .regularExpression))
            text.replaceSubrange(range, with: #""coefficientsX":["#)
        case "kind": text = text.replacingOccurrences(of: "ridgePolynomial2", with: "neuralNet")
        case "width": text = text.replacingOccurrences(of: #""width":1920"#, with: #""width":-1"#)
        case "hugeWidth": text = text.replacingOccurrences(of: #""width":1920"#, with: #""width":1e308"#)
        case "version": text = text.replacingOccurrences(of: #""formatVersion":1"#, with: #""formatVersion":2"#)
        default:
            let range = try #require(text.range(of: #""samples":[{"target":0"#))
            text.replaceSubrange(range, with: #""samples":[{"target":99"#)
        }
        #expect {
            _ = try CalibrationRecord(document: Array(text.utf8), source: "damaged.json")
        } throws: { error in
            "\(error)".contains("damaged.json: " + message)
        }
    }
}

@Suite("Calibration scripts")
struct CalibrationScriptTests {
    @Test("targets in points or percent, comments, screen and settle; sorted by time")
    func parses() throws {
        let script = try CalibrationScript(text: """
            # a comment
            screen 1280x720
            settle 0.4   # seconds
            calibrate 10% 50% 2 3
            calibrate 640 360 0 1.5
            validate 25% 75% 4 5
            """, file: "s.txt")
        #expect(script.screenWidth == 1280 && script.screenHeight == 720 && script.settleSeconds == 0.4)
        let targets = script.targets(width: 1280, height: 720)
        #expect(targets.map(\.position) == [Point2(640, 360), Point2(128, 360), Point2(320, 540)])
        #expect(targets.map(\.kind) == [.calibration, .calibration, .validation])
        #expect(targets[0].startSeconds == 0 && targets[0].endSeconds == 1.5)
    }

    @Test("mistakes name the file, the line and the fix", arguments: [
        ("calibrate 1 2 3\n", "s.txt:1: expected 'calibrate X Y START END' (5 fields), got 4"),
        ("calibrate a 2 0 1\n", "s.txt:1: X and Y must be numbers"),
        ("calibrate 1 2 3 2\n", "s.txt:1: START and END must be seconds"),
        ("calibrate 1 2 0 2\ncalibrate 1 2 1 3\n", "s.txt:2: its window overlaps the one on line 1"),
        ("validate 1 2 0 1\ncalibrate 1 2 2 3\n", "s.txt:2: calibration targets must all come before the first validation target"),
        ("screen 1920\n", "s.txt:1: expected 'screen WIDTHxHEIGHT'"),
        ("# nothing\n", "s.txt: it has no calibrate lines"),
    ])
    func errors(text: String, message: String) {
        #expect {
            _ = try CalibrationScript(text: text, file: "s.txt")
        } throws: { error in
            "\(error)".contains("calibration script " + message)
        }
    }
}

@Suite("Calibration store")
struct CalibrationStoreTests {
    @Test("save, list, latest for a screen, read back, refuse duplicates, delete all or none")
    func lifecycle() throws {
        let database = try SessionDatabase()
        let first = try constructedRecord(seed: 1, name: "first")
        var second = try constructedRecord(seed: 2, name: "second")
        second.createdAtSeconds += 60
        try database.save(first)
        try database.save(second)
        #expect(try database.calibrations().map(\.id) == [first.id, second.id])
        #expect(try database.latestCalibration()?.id == second.id)
        #expect(try database.latestCalibration(screenWidth: 1920, screenHeight: 1080)?.id == second.id)
        #expect(try database.latestCalibration(screenWidth: 1280, screenHeight: 720) == nil)
        #expect(try database.calibrationRecord(id: first.id.lowercased()).mapping == first.mapping)
        #expect(try database.calibrationRecord(id: "latest").id == second.id)
        // Summary columns agree with the document
        let summary = try #require(try database.calibrations().first)
        #expect(summary.pointCount == 9 && summary.name == "first")
        #expect(summary.accuracyPoints == first.validation?.accuracyPoints)
        #expect(throws: StoreError.calibrationExists(id: first.id, source: "calibration \(first.id)")) {
            try database.save(first)
        }
        let unknown = "00000000-0000-0000-0000-000000000000"
        #expect(throws: StoreError.unknownCalibration(id: unknown, databasePath: ":memory:")) {
            try database.deleteCalibrations(ids: [first.id, unknown])
        }
        #expect(try database.calibrations().count == 2)
        try database.deleteCalibrations(ids: [first.id])
        #expect(try database.calibrations().map(\.id) == [second.id])
    }

    @Test("a stored frame gives the features a live frame gave: the mapping cannot tell them apart")
    func storedFrameFeatures() throws {
        var frame = FrameMeasurement(timestampSeconds: 10, trackingState: .normal, confidence: 0.9,
                                     pupilLeft: Point2(0.52, 0.11),
                                     headPose: HeadPoseMeasurement(yawDegrees: 3, pitchDegrees: -2, rollDegrees: 1,
                                                                   translation: Vector3(120, -80, 6000)))
        let features = try #require(GazeFeatures(frame))
        #expect(features.pupilLeft == Point2(0.52, 0.11) && features.pupilRight == nil)
        #expect(features.headX == 120.0 / 6000 && features.headY == -80.0 / 6000 && features.trackingNormal)
        let applied = AppliedCalibration(try constructedRecord())
        let sample = try #require(applied.sample(for: frame, orientation: 3))
        #expect(sample.trackingState == .normal && sample.orientation == 3)
        frame.trackingState = .lowConfidence
        #expect(applied.sample(for: frame, orientation: 3)?.trackingState == .lowConfidence)
        // A head pose at zero depth has no direction: no features, on every path.
        var flat = frame
        flat.headPose?.translation.z = 0
        #expect(GazeFeatures(flat) == nil)
        frame.pupilLeft = nil
        #expect(applied.sample(for: frame, orientation: 3) == nil)
    }
}
