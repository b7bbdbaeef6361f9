import GazeCore

/// Finds and follows one face across frames: detector when needed, landmarks every frame.
///
/// The per-frame loop:
/// 1. If no face is tracked, or the periodic re-detection is due, run the HOG detector on the
///    frame shrunk so it is at most `detectionWidth` pixels wide, and pick the largest face
///    (the most central one among faces of similar size).
/// 2. Otherwise place the box from the previous frame's landmarks (the box the model would have
///    needed to produce them), so the detector — 10–20× the cost of a landmark fit — runs rarely.
/// 3. Fit the 68 landmarks and score the shape's plausibility. A tracked fit that scores below
///    `redetectConfidence` is retried once from a fresh detection.
///
/// Not thread-safe: one tracker per stream (it owns its detector).
public final class FaceTracker {
    public let model: LandmarkModel
    private let detector: FaceDetector
    /// Largest width the detector sees; wider frames are shrunk by an integer factor.
    public var detectionWidth: Int
    /// Re-detect at least this often even while tracking (seconds).
    public var redetectIntervalSeconds: Double
    /// A tracked fit below this confidence triggers an immediate re-detection.
    public var redetectConfidence: Double
    /// Faces whose best fit stays below this confidence are reported as lost.
    public var minimumConfidence: Double

    private var trackedBox: FaceBox?
    private var lastDetectionTime: Double?

    /// How many frames ran the detector (for diagnostics and benchmarks).
    public private(set) var detectorRuns = 0
    /// The box the last landmark fit used.
    public private(set) var lastFitBox: FaceBox?

    public init(model: LandmarkModel, detectionWidth: Int = 400, redetectIntervalSeconds: Double = 2,
                redetectConfidence: Double = 0.3, minimumConfidence: Double = 0.1) throws {
        self.model = model
        detector = try FaceDetector()
        self.detectionWidth = detectionWidth
        self.redetectIntervalSeconds = redetectIntervalSeconds
        self.redetectConfidence = redetectConfidence
        self.minimumConfidence = minimumConfidence
    }

    /// Forgets the tracked face (the next frame runs the detector).
    public func reset() {
        trackedBox = nil
        lastDetectionTime = nil
    }

    /// The face in `image` (captured at `timeSeconds`), or nil if there is none.
    public func process(_ image: GrayImage, timeSeconds: Double) throws -> FaceObservation? {
        let detectionDue = lastDetectionTime.map { timeSeconds - $0 >= redetectIntervalSeconds || timeSeconds < $0 } ?? true
        if let box = trackedBox, !detectionDue {
            lastFitBox = box
            let landmarks = try model.fit(image, box: box)
            let confidence = model.meanShape.confidence(of: landmarks)
            if confidence >= redetectConfidence {
                trackedBox = nextBox(for: landmarks, in: image)
                return FaceObservation(landmarks: landmarks, confidence: confidence, detected: false)
            }
        }
        return try detectAndFit(image, timeSeconds: timeSeconds)
    }

    private func detectAndFit(_ image: GrayImage, timeSeconds: Double) throws -> FaceObservation? {
        detectorRuns += 1
        lastDetectionTime = timeSeconds
        let factor = Swift.max(1, Int((Double(image.width) / Double(detectionWidth)).rounded(.up)))
        let small = image.downscaled(by: factor)
        let boxes = try detector.detect(small).map { box in
            FaceBox(left: box.left * factor, top: box.top * factor, right: (box.right + 1) * factor - 1,
                    bottom: (box.bottom + 1) * factor - 1, score: box.score)
        }
        guard let chosen = Self.choose(boxes, imageCentre: Point2(Double(image.width) / 2, Double(image.height) / 2)) else {
            trackedBox = nil
            return nil
        }
        lastFitBox = chosen
        let landmarks = try model.fit(image, box: chosen)
        let confidence = model.meanShape.confidence(of: landmarks)
        guard confidence >= minimumConfidence else {
            trackedBox = nil
            return nil
        }
        trackedBox = nextBox(for: landmarks, in: image)
        return FaceObservation(landmarks: landmarks, confidence: confidence, detected: true)
    }

    /// The largest face; among faces within 20 % of the largest's area, the most central.
    static func choose(_ boxes: [FaceBox], imageCentre: Point2) -> FaceBox? {
        guard let largest = boxes.map(\.area).max() else { return nil }
        return boxes.filter { Double($0.area) >= 0.8 * Double(largest) }
            .min { $0.centre.distance(to: imageCentre) < $1.centre.distance(to: imageCentre) }
    }

    private func nextBox(for landmarks: FaceLandmarks, in image: GrayImage) -> FaceBox? {
        let box = model.meanShape.box(for: landmarks)
        let result = FaceBox(left: Int(box.left.rounded()), top: Int(box.top.rounded()),
                             right: Int(box.right.rounded()), bottom: Int(box.bottom.rounded()))
        // A box mostly outside the frame means the face is leaving: detect again.
        let visibleWidth = Swift.min(result.right, image.width - 1) - Swift.max(result.left, 0)
        let visibleHeight = Swift.min(result.bottom, image.height - 1) - Swift.max(result.top, 0)
        guard visibleWidth > result.width / 2, visibleHeight > result.height / 2, result.width >= 20 else { return nil }
        return result
    }
}
