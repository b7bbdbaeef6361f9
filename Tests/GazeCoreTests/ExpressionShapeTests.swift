import Foundation
import GazeModel
import Testing
import TestSupport
@testable import GazeCore

/// The expression shapes on constructed faces: the frontal pose undoes a known head pose, the
/// neutral face is learned as documented.
@Suite("Expression shapes: frontal face and neutral")
struct ExpressionShapeTests {
    /// The mean face seen by a camera 600 mm away (f = 500 px) under a pose, displaced first by `shift` (mm, per landmark).
    static func image(yawDegrees: Double, pitchDegrees: Double, rollDegrees: Double,
                      shift: [Int: Point2] = [:]) -> (FaceLandmarks, HeadPose) {
        let toRadians = Double.pi / 180
        let rotation = Matrix3.rotation(rodrigues: Vector3(0, 0, rollDegrees * toRadians))
            * Matrix3.rotation(rodrigues: Vector3(0, yawDegrees * toRadians, 0))
            * Matrix3.rotation(rodrigues: Vector3(pitchDegrees * toRadians, 0, 0))
        let camera = CameraIntrinsics(focalLengthPixels: 500, centre: Point2(320, 240))
        let points = FaceModel3D.meanShape.points.map { entry -> Point2 in
            let offset = shift[entry.landmark] ?? .zero
            let model = Vector3(entry.position.x + offset.x, entry.position.y + offset.y, entry.position.z)
            return camera.project(rotation * model + Vector3(10, -5, 600))
        }
        return (FaceLandmarks(points: points), HeadPose(rotationVector: rotation.rodrigues, translation: Vector3(10, -5, 600),
                                                      reprojectionErrorPixels: 0))
    }

    @Test("The frontal face of the mean face under any pose and camera is the mean face")
    func frontalUndoesPose() {
        for (yaw, pitch, roll) in [(0.0, 0.0, 0.0), (25, 0, 0), (-25, 10, 5), (0, -15, -10)] {
            let (landmarks, pose) = Self.image(yawDegrees: yaw, pitchDegrees: pitch, rollDegrees: roll)
            let frontal = FrontalFace(landmarks: landmarks, pose: pose)
            let worst = zip(frontal.points, FrontalFace.mean.points).map { $0.distance(to: $1) }.max()!
            #expect(worst < 1e-6, "yaw \(yaw) pitch \(pitch) roll \(roll): \(worst) mm")
        }
    }

    @Test("A raised mouth corner reads as a smile on that side only, whatever the head pose")
    func smileOnOneSide() {
        for yaw in [0.0, 25, -25] {
            let (landmarks, pose) = Self.image(yawDegrees: yaw, pitchDegrees: 0, rollDegrees: 0, shift: [54: Point2(2, -6)])
            var frame = FrameFeatures(frameIndex: 0, timestampSeconds: 0, trackingState: .normal, confidence: 1,
                                      face: FaceObservation(landmarks: landmarks, confidence: 1, detected: true))
            frame.headPose = pose
            let left = BlendShapeEstimator.value(.mouthSmileLeft, frame)!
            let right = BlendShapeEstimator.value(.mouthSmileRight, frame)!
            #expect(abs(left - 0.6) < 0.12, "yaw \(yaw): mouthSmile_L \(left)")
            #expect(right < 0.12, "yaw \(yaw): mouthSmile_R \(right)")
        }
    }

    @Test("The neutral face is the median of the first frontal frames, then fixed; turned heads are not learned")
    func neutralLearning() {
        var neutral = BlendShapeNeutral(frames: 3)
        #expect(neutral.face == nil)
        func frame(yaw: Double, lift: Double) -> FrameFeatures {
            let (landmarks, pose) = Self.image(yawDegrees: yaw, pitchDegrees: 0, rollDegrees: 0, shift: [54: Point2(0, -lift)])
            var features = FrameFeatures(frameIndex: 0, timestampSeconds: 0, trackingState: .normal, confidence: 1,
                                         face: FaceObservation(landmarks: landmarks, confidence: 1, detected: true))
            features.headPose = pose
            return features
        }
        neutral.observe(frame(yaw: 0, lift: 4))
        let first = neutral.face!
        neutral.observe(frame(yaw: 30, lift: 0))
        #expect(neutral.face == first, "a head turned 30° is not learned")
        neutral.observe(frame(yaw: 0, lift: 0))
        neutral.observe(frame(yaw: 0, lift: 1))
        #expect(neutral.isComplete)
        let median = neutral.face![54].y
        neutral.observe(frame(yaw: 0, lift: 8))
        #expect(neutral.face![54].y == median, "fixed once complete")
        #expect(abs(median - (FrontalFace.mean[54].y - 1)) < 0.3, "the median lift, 1 mm: \(median)")
    }

    @Test("A refused shape is never a recorded one, and each is refused once with a reason")
    func refusals() {
        let recorded = Set(BlendShapeName.allCases.map(\.rawValue))
        let refused = BlendShapeName.refused.map(\.name)
        #expect(Set(refused).count == refused.count)
        #expect(recorded.isDisjoint(with: refused))
        #expect(BlendShapeName.refused.allSatisfy { !$0.reason.isEmpty && !$0.reason.contains("\n") })
        #expect(refused.contains("cheekSquint_L") && refused.contains("mouthRollLower"))
    }
}
