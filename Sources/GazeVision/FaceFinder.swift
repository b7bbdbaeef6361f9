import Foundation
import GazeCore
import GazeModel

/// The stage of the face finder that found a face.
public enum FaceFinderStage: String, Sendable, CaseIterable {
    /// dlib's HOG detector on the frame shrunk to about `FaceFinder.detectionWidth` pixels across.
    case hogShrunk
    /// HOG at the same scale on the part of the frame around the face being followed (a fresh box
    /// for it: the periodic look, or a fit that scored low).
    case hogNearby
    /// HOG on the whole frame (faces below the shrunk frame's ~80 px minimum).
    case hogFull
    /// HOG on the contrast-equalised whole frame (CLAHE): faces washed out or lit from one side.
    case hogEqualized
    /// dlib's CNN detector on the frame shrunk to about `FaceFinder.cnnWidth` pixels across.
    case cnnShrunk
    /// The CNN on the frame at up to twice that width (faces partly covered, turned or tilted up).
    case cnnFull
}

/// Finds a face where there is no tracked one: a cascade of detectors from cheap to costly, each
/// run only when the ones before it found nothing.
///
/// 1. HOG on the shrunk frame (4–5 ms at 640×480): most frontal faces.
/// 2. HOG on the whole frame, then on its CLAHE-equalised copy (15–18 ms each): small faces,
///    faces washed out by a bright room or lit from one side, glasses with reflections.
/// 3. dlib's CNN (MMOD) detector on the frame shrunk to ~320 px (≈ 90 ms), then at up to 640 px
///    (≈ 0.5 s): a fringe over the brows, a hand on the chin, a face turned or tilted up. Only
///    with its model (`cnnModelPath`); without it the cascade stops after HOG.
///
/// Stages after the first run at most every `retrySeconds` of the frames' time while no face is
/// found, so a stretch of video without anyone costs a fraction of a frame per frame. A tracked
/// face never reaches the finder. Not thread-safe (it owns its detectors): one per stream.
public final class FaceFinder {
    /// Largest width HOG's first stage sees; wider frames are shrunk by an integer factor.
    public var detectionWidth: Int
    /// Width the CNN's first stage shrinks the frame to.
    public var cnnWidth: Int
    /// The later stages' pause while nothing is found (seconds of frame time).
    public var retrySeconds: Double
    /// How far around a followed face `findNearby` looks, on each side, as a fraction of its side.
    public var nearbyMargin: Double

    private let hog: FaceDetector
    private let cnn: CNNFaceDetector?
    private let equalizer = ContrastEqualizer()
    private var lastLaterStagesTime: Double?

    /// Frames each stage ran on and found a face in, for diagnostics and benchmarks.
    public private(set) var runs: [FaceFinderStage: Int] = [:]
    public private(set) var finds: [FaceFinderStage: Int] = [:]

    /// A finder with the CNN stages when `cnnModelPath` is given.
    public init(cnnModelPath: String? = nil, detectionWidth: Int = 400, cnnWidth: Int = 320, retrySeconds: Double = 0.5,
                nearbyMargin: Double = 0.5) throws {
        hog = try FaceDetector()
        cnn = try cnnModelPath.map { try CNNFaceDetector(path: $0) }
        self.detectionWidth = detectionWidth
        self.cnnWidth = cnnWidth
        self.retrySeconds = retrySeconds
        self.nearbyMargin = nearbyMargin
    }

    /// Whether the CNN stages are available.
    public var hasCNN: Bool { cnn != nil }

    /// Lets the later stages run on the next frame without waiting out `retrySeconds`.
    public func resetRetry() { lastLaterStagesTime = nil }

    /// The face to follow in `image` (at `timeSeconds`) and the stage that found it, or nil.
    /// `cheapOnly` runs the first stage alone (a live frame thread that leaves the rest to a
    /// background finder).
    public func find(_ image: GrayImage, timeSeconds: Double, cheapOnly: Bool = false) throws -> (box: FaceBox, stage: FaceFinderStage)? {
        let centre = Point2(Double(image.width) / 2, Double(image.height) / 2)
        let factor = shrinkFactor(image)
        if let box = try run(.hogShrunk, centre: centre, { try self.hog.detect(image.downscaled(by: factor)).map { $0.scaled(by: factor) } }) {
            return (box, .hogShrunk)
        }
        if cheapOnly { return nil }
        if let last = lastLaterStagesTime, timeSeconds >= last, timeSeconds - last < retrySeconds { return nil }
        lastLaterStagesTime = timeSeconds
        return try findWithLaterStages(image, centre: centre, shrunkFactor: factor)
    }

    /// A fresh box for the face followed in `tracked`: HOG at the first stage's scale on the part
    /// of the frame within `nearbyMargin` of it (about 40 % of the shrunk frame for a face a
    /// quarter of the frame wide), so the look costs that share of the first stage and cannot
    /// jump to another, larger face elsewhere in the frame. Nil when it finds none there.
    public func findNearby(_ tracked: FaceBox, in image: GrayImage) throws -> (box: FaceBox, stage: FaceFinderStage)? {
        let factor = shrinkFactor(image)
        let margin = nearbyMargin * Double(Swift.max(tracked.width, tracked.height))
        // The part in the shrunk frame's pixels; its corner on HOG's 8-pixel cell grid, so the
        // cells it shares with the whole shrunk frame are the same cells.
        let shrunkWidth = image.width / factor, shrunkHeight = image.height / factor
        let cell = 8
        let left = Swift.max(0, Int(floor((Double(tracked.left) - margin) / Double(factor * cell))) * cell)
        let top = Swift.max(0, Int(floor((Double(tracked.top) - margin) / Double(factor * cell))) * cell)
        let right = Swift.min(shrunkWidth, Int(ceil((Double(tracked.right + 1) + margin) / Double(factor))))
        let bottom = Swift.min(shrunkHeight, Int(ceil((Double(tracked.bottom + 1) + margin) / Double(factor))))
        guard right - left >= Self.detectorWindow, bottom - top >= Self.detectorWindow else { return nil }
        let part = image.downscaled(by: factor, x: left * factor, y: top * factor, width: (right - left) * factor,
                                    height: (bottom - top) * factor)
        let centre = Point2(tracked.centre.x / Double(factor) - Double(left), tracked.centre.y / Double(factor) - Double(top))
        let found = try run(.hogNearby, centre: centre) {
            try self.hog.detect(part).map {
                FaceBox(left: $0.left + left, top: $0.top + top, right: $0.right + left, bottom: $0.bottom + top, score: $0.score,
                        hogFilter: $0.hogFilter).scaled(by: factor)
            }
        }
        return found.map { ($0, .hogNearby) }
    }

    /// The side of dlib's frontal HOG detection window (pixels): a part narrower finds nothing.
    static let detectorWindow = 80

    /// The integer factor that shrinks `image` to about `detectionWidth` pixels across (at least 1).
    private func shrinkFactor(_ image: GrayImage) -> Int {
        Swift.max(1, Int((Double(image.width) / Double(detectionWidth)).rounded()))
    }

    /// Stages 2 and 3, whatever the time (the background finder's work).
    public func findWithLaterStages(_ image: GrayImage) throws -> (box: FaceBox, stage: FaceFinderStage)? {
        let factor = shrinkFactor(image)
        return try findWithLaterStages(image, centre: Point2(Double(image.width) / 2, Double(image.height) / 2), shrunkFactor: factor)
    }

    private func findWithLaterStages(_ image: GrayImage, centre: Point2, shrunkFactor: Int) throws -> (box: FaceBox, stage: FaceFinderStage)? {
        if shrunkFactor > 1, let box = try run(.hogFull, centre: centre, { try self.hog.detect(image) }) {
            return (box, .hogFull)
        }
        if let box = try run(.hogEqualized, centre: centre, { try self.hog.detect(self.equalizer.apply(image)) }) {
            return (box, .hogEqualized)
        }
        guard let cnn else { return nil }
        let cnnFactor = Swift.max(1, Int((Double(image.width) / Double(cnnWidth)).rounded()))
        if let box = try run(.cnnShrunk, centre: centre, { try cnn.detect(image.downscaled(by: cnnFactor)).map { $0.scaled(by: cnnFactor) } }) {
            return (box, .cnnShrunk)
        }
        let fullFactor = Swift.max(1, Int((Double(image.width) / Double(2 * cnnWidth)).rounded(.up)))
        guard fullFactor < cnnFactor else { return nil }
        if let box = try run(.cnnFull, centre: centre, { try cnn.detect(image.downscaled(by: fullFactor)).map { $0.scaled(by: fullFactor) } }) {
            return (box, .cnnFull)
        }
        return nil
    }

    private func run(_ stage: FaceFinderStage, centre: Point2, _ detect: () throws -> [FaceBox]) throws -> FaceBox? {
        runs[stage, default: 0] += 1
        guard let box = Self.choose(try detect(), imageCentre: centre) else { return nil }
        finds[stage, default: 0] += 1
        return box
    }

    /// The largest face; among faces within 20 % of the largest's area, the most central.
    static func choose(_ boxes: [FaceBox], imageCentre: Point2) -> FaceBox? {
        guard let largest = boxes.map(\.area).max() else { return nil }
        return boxes.filter { Double($0.area) >= 0.8 * Double(largest) }
            .min { $0.centre.distance(to: imageCentre) < $1.centre.distance(to: imageCentre) }
    }
}

extension FaceBox {
    /// The box found in a frame shrunk by `factor`, in the whole frame's pixels.
    func scaled(by factor: Int) -> FaceBox {
        guard factor > 1 else { return self }
        return FaceBox(left: left * factor, top: top * factor, right: (right + 1) * factor - 1, bottom: (bottom + 1) * factor - 1,
                       score: score, hogFilter: hogFilter)
    }
}
