import GazeCore
import GazeModel

/// Finds and follows one face across frames: detector when needed, landmarks every frame.
///
/// The per-frame loop:
/// 1. If no face is tracked, or the periodic re-detection is due, run the HOG detector on the
///    frame shrunk so it is about `detectionWidth` pixels wide, and pick the largest face (the most
///    central one among faces of similar size). If that finds nothing in a large frame (faces
///    shrink below the detector's ~80 px minimum), try again at up to twice that width, at most
///    twice a second. A periodic re-detection that finds nothing keeps the tracked face.
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
    private var lastWideDetectionTime: Double?

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
        var tracked: FaceObservation?
        if let box = trackedBox {
            lastFitBox = box
            let landmarks = model.fit(image, box: box)
            let confidence = model.meanShape.confidence(of: landmarks)
            if confidence >= redetectConfidence {
                tracked = FaceObservation(landmarks: landmarks, confidence: confidence, detected: false)
                if !detectionDue {
                    trackedBox = nextBox(for: landmarks, in: image)
                    return tracked
                }
            }
        }
        if let detected = try detectAndFit(image, timeSeconds: timeSeconds) { return detected }
        // The periodic re-detection missed a face that tracking still holds well: keep it.
        if let tracked {
            lastFitBox = trackedBox
            trackedBox = nextBox(for: tracked.landmarks, in: image)
            return tracked
        }
        trackedBox = nil
        return nil
    }

    /// Runs the detector (shrunk frame first, wider if needed); fits and returns the chosen face.
    private func detectAndFit(_ image: GrayImage, timeSeconds: Double) throws -> FaceObservation? {
        detectorRuns += 1
        lastDetectionTime = timeSeconds
        let centre = Point2(Double(image.width) / 2, Double(image.height) / 2)
        let factor = Swift.max(1, Int((Double(image.width) / Double(detectionWidth)).rounded()))
        var chosen = Self.choose(try detect(image, factor: factor), imageCentre: centre)
        let wideFactor = Swift.max(1, image.width / (2 * detectionWidth))
        if chosen == nil, wideFactor < factor,
           lastWideDetectionTime.map({ timeSeconds - $0 >= 0.5 || timeSeconds < $0 }) ?? true {
            lastWideDetectionTime = timeSeconds
            chosen = Self.choose(try detect(image, factor: wideFactor), imageCentre: centre)
        }
        guard let chosen else { return nil }
        lastFitBox = chosen
        let landmarks = model.fit(image, box: chosen)
        let confidence = model.meanShape.confidence(of: landmarks)
        guard confidence >= minimumConfidence else { return nil }
        trackedBox = nextBox(for: landmarks, in: image)
        return FaceObservation(landmarks: landmarks, confidence: confidence, detected: true)
    }

    private func detect(_ image: GrayImage, factor: Int) throws -> [FaceBox] {
        try detector.detect(image.downscaled(by: factor)).map { box in
            FaceBox(left: box.left * factor, top: box.top * factor, right: (box.right + 1) * factor - 1,
                    bottom: (box.bottom + 1) * factor - 1, score: box.score)
        }
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
