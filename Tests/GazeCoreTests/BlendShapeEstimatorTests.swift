import GazeModel
import Testing
@testable import GazeCore

/// The blend-shape formulas of docs/BlendShapes.md on constructed features: exact values.
@Suite("Blend-shape formulas")
struct BlendShapeEstimatorTests {
    /// A frame with the given per-eye values (participant's left and right).
    static func features(openness: (Double, Double) = (1, 1), aperture: (Double, Double) = (1, 1),
                         pupils: (Point2, Point2)? = nil, mouthGap: Double? = nil) -> FrameFeatures {
        var frame = FrameFeatures(frameIndex: 0, timestampSeconds: 0, trackingState: .normal, confidence: 1, face: nil)
        frame.openness = [.left: openness.0, .right: openness.1]
        frame.relativeAperture = [.left: aperture.0, .right: aperture.1]
        if let pupils {
            frame.pupils = [.left: PupilObservation(centre: .zero, normalized: pupils.0),
                            .right: PupilObservation(centre: .zero, normalized: pupils.1)]
        }
        if let mouthGap {
            // Eye centres 100 px apart (points 36–41 around x = 100, 42–47 around x = 200), the
            // inner lips 62 (upper) and 66 (lower) `mouthGap` px apart.
            var points = [Point2](repeating: Point2(150, 200), count: 68)
            for index in 36..<42 { points[index] = Point2(100, 100) }
            for index in 42..<48 { points[index] = Point2(200, 100) }
            points[62] = Point2(150, 200)
            points[66] = Point2(150, 200 + mouthGap)
            frame.face = FaceObservation(landmarks: FaceLandmarks(points: points), confidence: 1, detected: true)
        }
        return frame
    }

    @Test("eyeBlink is 1 − openness, per eye")
    func blink() {
        let frame = Self.features(openness: (0.25, 0.75))
        #expect(BlendShapeEstimator.value(.eyeBlinkLeft, frame) == 0.75)
        #expect(BlendShapeEstimator.value(.eyeBlinkRight, frame) == 0.25)
    }

    @Test("eyeWide rises from 0 at the usual aperture to 1 at 30 % wider, clamped")
    func wide() {
        let frame = Self.features(aperture: (1.15, 1.6))
        #expect(abs(BlendShapeEstimator.value(.eyeWideLeft, frame)! - 0.5) < 1e-12)
        #expect(BlendShapeEstimator.value(.eyeWideRight, frame) == 1)
        #expect(BlendShapeEstimator.value(.eyeWideLeft, Self.features(aperture: (0.8, 1))) == 0)
    }

    @Test("looking up and down: both eyes' mean v from the rest over a span of 0.08; the pairs read alike")
    func upDown() {
        // Without a learned rest: v = −0.06. Mean displacement (−0.04 + 0.08) / 2 = 0.02 down → 0.25.
        let frame = Self.features(pupils: (Point2(0.5, -0.1), Point2(0.5, 0.02)))
        #expect(abs(BlendShapeEstimator.value(.eyeLookDownLeft, frame)! - 0.25) < 1e-12)
        #expect(BlendShapeEstimator.value(.eyeLookDownRight, frame) == BlendShapeEstimator.value(.eyeLookDownLeft, frame))
        #expect(BlendShapeEstimator.value(.eyeLookUpLeft, frame) == 0)
        #expect(BlendShapeEstimator.value(.eyeLookUpRight, frame) == 0)
        // One eye alone counts alone.
        var one = Self.features(pupils: (Point2(0.5, -0.1), Point2(0.5, -0.1)))
        one.pupils[.right] = nil
        #expect(abs(BlendShapeEstimator.value(.eyeLookUpRight, one)! - 0.5) < 1e-12)
    }

    @Test("in and out: the eyes move together; towards the image's left the left eye looks in and the right eye out")
    func inOut() {
        // Both pupils shifted towards the image's left by 0.075 (half the span).
        let frame = Self.features(pupils: (Point2(0.425, 0), Point2(0.425, 0)))
        #expect(abs(BlendShapeEstimator.value(.eyeLookInLeft, frame)! - 0.5) < 1e-12)
        #expect(BlendShapeEstimator.value(.eyeLookOutLeft, frame) == 0)
        #expect(abs(BlendShapeEstimator.value(.eyeLookOutRight, frame)! - 0.5) < 1e-12)
        #expect(BlendShapeEstimator.value(.eyeLookInRight, frame) == 0)
    }

    @Test("the rest is learned from the first frames: looking as then reads 0 on every look shape")
    func restLearned() {
        var rest = BlendShapeRest(frames: 5)
        // A participant whose pupils rest off the generic centre (the shift that read eyeLookOut_L 0.53).
        let resting = Self.features(pupils: (Point2(0.58, -0.02), Point2(0.47, -0.1)))
        for _ in 0..<5 { rest.observe(resting) }
        // Later frames do not move it.
        rest.observe(Self.features(pupils: (Point2(0.2, 0.3), Point2(0.2, 0.3))))
        #expect(rest.rest[.left] == Point2(0.58, -0.02) && rest.rest[.right] == Point2(0.47, -0.1))
        let looks: [BlendShapeName] = [.eyeLookInLeft, .eyeLookInRight, .eyeLookOutLeft, .eyeLookOutRight, .eyeLookUpLeft,
                                       .eyeLookUpRight, .eyeLookDownLeft, .eyeLookDownRight]
        for name in looks {
            #expect(BlendShapeEstimator.value(name, resting, rest: rest.rest) == 0, "\(name)")
        }
        // With the generic rest the same frame looks to the image's right.
        #expect(BlendShapeEstimator.value(.eyeLookOutLeft, resting)! > 0.15)
        #expect(BlendShapeEstimator.value(.eyeLookInRight, resting)! > 0.15)
        // A glance to the image's right by 0.075 from the rest.
        let glance = Self.features(pupils: (Point2(0.655, -0.02), Point2(0.545, -0.1)))
        #expect(abs(BlendShapeEstimator.value(.eyeLookOutLeft, glance, rest: rest.rest)! - 0.5) < 1e-9)
        #expect(abs(BlendShapeEstimator.value(.eyeLookInRight, glance, rest: rest.rest)! - 0.5) < 1e-9)
        // Frames not steadily tracked do not teach it.
        var fresh = BlendShapeRest(frames: 5)
        var unsteady = resting
        unsteady.trackingState = .initializing
        fresh.observe(unsteady)
        #expect(fresh.rest.isEmpty)
    }

    @Test("jawOpen: the inner-lip gap over 0.6 inter-ocular distances")
    func jaw() {
        #expect(abs(BlendShapeEstimator.value(.jawOpen, Self.features(mouthGap: 30))! - 0.5) < 1e-12)
        #expect(BlendShapeEstimator.value(.jawOpen, Self.features(mouthGap: 90)) == 1)
    }

    @Test("what a frame lacks gives no value: no pupils, no face")
    func missing() {
        let frame = Self.features()
        #expect(BlendShapeEstimator.value(.eyeLookUpLeft, frame) == nil)
        #expect(BlendShapeEstimator.value(.jawOpen, frame) == nil)
    }
}
