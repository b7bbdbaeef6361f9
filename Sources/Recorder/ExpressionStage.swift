import FaceExpression
import GazeCapture
import GazeCore
import GazeModel

/// The expression stage of the per-frame pipeline: each frame's face through the expression
/// model (`ExpressionClassifier`, mini-Xception FER run by ONNX Runtime), on the face crop cut on
/// its 68 landmarks.
///
/// It runs on every frame with a face: the model costs ≈ 0.3 ms per face against ≈ 2.5 ms for the
/// rest of a frame's analysis (docs/Expressions.md), so no frame is skipped. Frames without a face
/// get no sample. Made before a recording begins, so a missing runtime or model stops it before
/// any session exists. Used from the one thread that records.
public final class ExpressionStage {
    public let classifier: ExpressionClassifier
    /// Faces run through the model so far, and the wall time they took (crop and inference).
    public private(set) var faces = 0
    public private(set) var seconds = 0.0

    /// Opens ONNX Runtime and the model, or throws `ExpressionError` saying how to install them.
    public init(files: ExpressionModelFiles) throws {
        classifier = try ExpressionClassifier(files: files)
    }

    /// The frame's expression probabilities stamped `timestampSeconds`; nil without a face.
    public func sample(_ features: FrameFeatures, timestampSeconds: Double) throws -> ExpressionSample? {
        guard let probabilities = try probabilities(features) else { return nil }
        return ExpressionSample(timestampSeconds: timestampSeconds, probabilities: probabilities)
    }

    /// The frame's expression probabilities; nil without a face (or without the frame's image).
    public func probabilities(_ features: FrameFeatures) throws -> ExpressionProbabilities? {
        guard let image = features.image, let landmarks = features.face?.landmarks else { return nil }
        let start = SystemClock.monotonic()
        defer {
            faces += 1
            seconds += SystemClock.monotonic() - start
        }
        return try classifier.probabilities(image: image, landmarks: landmarks)
    }
}
