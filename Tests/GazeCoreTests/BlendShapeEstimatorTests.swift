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

    @Test("looking up and down: the pupil's v from −0.06 over a span of 0.08")
    func upDown() {
        let frame = Self.features(pupils: (Point2(0.5, -0.1), Point2(0.5, 0.02)))
        #expect(abs(BlendShapeEstimator.value(.eyeLookUpLeft, frame)! - 0.5) < 1e-12)
        #expect(BlendShapeEstimator.value(.eyeLookDownLeft, frame) == 0)
        #expect(abs(BlendShapeEstimator.value(.eyeLookDownRight, frame)! - 1) < 1e-12)
        #expect(BlendShapeEstimator.value(.eyeLookUpRight, frame) == 0)
    }

    @Test("in and out: towards the nose is the image's left for the left eye, its right for the right eye")
    func inOut() {
        // Both pupils shifted towards the image's left by 0.075 (half the span).
        let frame = Self.features(pupils: (Point2(0.425, 0), Point2(0.425, 0)))
        #expect(abs(BlendShapeEstimator.value(.eyeLookInLeft, frame)! - 0.5) < 1e-12)
        #expect(BlendShapeEstimator.value(.eyeLookOutLeft, frame) == 0)
        #expect(abs(BlendShapeEstimator.value(.eyeLookOutRight, frame)! - 0.5) < 1e-12)
        #expect(BlendShapeEstimator.value(.eyeLookInRight, frame) == 0)
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
