import GazeModel
import Testing

@Suite("Tracking state and the session extension")
struct GazeModelTests {
    @Test("every state reads back from its EyeTracking spelling; normal is an absent key")
    func eyeTrackingSpelling() {
        for state in TrackingState.allCases {
            #expect(TrackingState(eyeTrackingValue: state.eyeTrackingValue) == state)
        }
        #expect(TrackingState.normal.eyeTrackingValue == nil)
        #expect(TrackingState.missing.eyeTrackingValue == "notTracking")
        #expect(TrackingState.lowConfidence.eyeTrackingValue == "limited.lowConfidence")
    }

    @Test("ARKit states gazerec does not produce map to their nearest")
    func otherARKitStates() {
        #expect(TrackingState(eyeTrackingValue: "limited.insufficientFeatures") == .lowConfidence)
        #expect(TrackingState(eyeTrackingValue: "limited.relocalizing") == .lowConfidence)
        #expect(TrackingState(eyeTrackingValue: "notAvailable") == .missing)
        #expect(TrackingState(eyeTrackingValue: "normal") == .normal)
    }

    @Test("gazerec's vocabulary is the raw value")
    func vocabulary() {
        #expect(TrackingState.allCases.map(\.rawValue) == ["normal", "initializing", "lowConfidence", "excessiveMotion", "missing"])
    }

    @Test("setting a member keeps its place and drops its stored text; nil removes it")
    func members() {
        var gazerec = SessionExtension(members: [
            .init(name: "formatVersion", value: .formatVersion(1), verbatim: "1"),
            .init(name: "custom", value: .other(json: "[1,2]"), verbatim: "[1,2]"),
            .init(name: "endedBy", value: .endedBy("x"), verbatim: "\"x\""),
        ])
        gazerec.formatVersion = 2
        #expect(gazerec.members.map(\.name) == ["formatVersion", "custom", "endedBy"])
        #expect(gazerec.members[0] == .init(name: "formatVersion", value: .formatVersion(2)))
        #expect(gazerec.members[1].verbatim == "[1,2]")
        gazerec.endedBy = nil
        #expect(gazerec.members.map(\.name) == ["formatVersion", "custom"])
    }

    @Test("applying a calibration replaces the three calibration members and moves them to the end")
    func applyCalibration() {
        let reference = CalibrationReference(id: "C", name: nil, createdAtSeconds: 1, points: 5, accuracyPoints: nil,
                                             accuracyDegrees: nil, viewing: nil)
        var gazerec = SessionExtension()
        gazerec.calibrationApplied = false
        gazerec.formatVersion = 1
        gazerec.applyCalibration(reference, smoothing: .oneEuro())
        #expect(gazerec.members.map(\.name) == ["formatVersion", "calibrationApplied", "calibration", "smoothing"])
        #expect(gazerec.calibration == reference)
        gazerec.applyCalibration(nil, smoothing: .none)
        #expect(gazerec.members.map(\.name) == ["formatVersion", "calibrationApplied"])
        #expect(gazerec.calibrationApplied == false)
    }

    @Test("a frame with a face and a frame without")
    func frameMeasurement() {
        let frame = FrameMeasurement(timestampSeconds: 1, trackingState: .normal, confidence: 0.5, opennessLeft: 0.25,
                                     pupilRight: Point2(0.5, 0.125),
                                     headPose: HeadPoseMeasurement(yawDegrees: 1, pitchDegrees: 2, rollDegrees: 3,
                                                                   translation: Vector3(4, 5, 6)))
        #expect(frame.hasFace)
        #expect(frame.optionalValues == [0.25, nil, nil, nil, 0.5, 0.125, 1, 2, 3, 4, 5, 6])
        #expect(FrameMeasurement.optionalValueNames.count == frame.optionalValues.count)
        #expect(frame.pupil(.right) == Point2(0.5, 0.125))
        #expect(!FrameMeasurement(timestampSeconds: 1, trackingState: .missing, confidence: 0).hasFace)
    }

    @Test("points per degree from the screen's width and the distance")
    func screenGeometry() {
        let geometry = ScreenGeometry(widthPoints: 1600, heightPoints: 900, widthMillimetres: 400, heightMillimetres: 225,
                                      distanceMillimetres: 600)
        // 4 points per millimetre; 1° at 600 mm is 600·tan(1°) = 10.4733 mm.
        #expect(abs(geometry.pointsPerDegree - 4 * 600 * 0.017455064928217585) < 1e-9)
        #expect(abs(geometry.angleDegrees(Point2(800, 450), Point2(800, 450))) < 1e-12)
    }
}
