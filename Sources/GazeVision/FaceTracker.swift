import Foundation
import GazeCore
import GazeModel

/// How a stream finds faces it is not tracking.
public struct FaceFinding: Sendable, Equatable {
    /// dlib's CNN face detector model (`mmod_human_face_detector.dat`); nil: HOG stages only.
    public var cnnModelPath: String?
    /// Live input: the stages after the first run on a thread of their own, so the frame thread
    /// keeps the camera's rate while they look (frames meanwhile have no face). Files run every
    /// stage in line, so their results do not depend on the machine's speed.
    public var background: Bool
    /// How a face only the CNN found is judged upright (`UprightFaceCheck`).
    public var uprightRule: UprightRule

    public init(cnnModelPath: String? = nil, background: Bool = false, uprightRule: UprightRule = .turnedOutlines) {
        self.cnnModelPath = cnnModelPath
        self.background = background
        self.uprightRule = uprightRule
    }
}

/// Finds and follows one face across frames: the finder's cascade when needed, landmarks every
/// frame, averaged over the frames of a still head.
///
/// The per-frame loop:
/// 1. If a face is tracked, place the box from the last stabilised landmarks (the box the model
///    would have needed to produce them), varied a little from frame to frame (shifted by up to
///    2 % of its side and grown or shrunk by up to 1.5 %) so that successive fits of a still face
///    make independent errors, and fit the 68 landmarks. A fit that scores below
///    `redetectConfidence` is retried from a fresh detection.
/// 2. The fit goes through a `LandmarkStabilizer`: the landmarks the frame reports are the mean of
///    the recent fits of a still head (the mean restarts when the head moves).
/// 3. Every `redetectIntervalSeconds` while tracking, and when a tracked fit scores low, HOG looks
///    for the face around its box (`FaceFinder.findNearby`); a periodic look that finds nothing
///    keeps the tracked face. Without a tracked face, or when a low-scoring face is not found
///    around its box, the `FaceFinder` cascade looks in the whole frame (HOG, HOG on the
///    equalised frame, the CNN).
/// 4. A face that only the CNN found is checked for uprightness (`UprightFaceCheck`): the frontal
///    HOG detector, or where it sees no face the CNN and HOG at a lowered threshold, must find it
///    as the frame shows it. Until it is confirmed (the check, or a later look around the face),
///    `uprightness` says it is not upright and its fits are not reported. A face a HOG look found
///    with a filter for faces turned to one side is, under the default rule `turnedOutlines`,
///    unconfirmed when its fit's pose is not turned that way while the fit's outline is: a
///    collapsed fit, inconsistent with itself.
///
/// Not thread-safe: one tracker per stream (it owns its detectors).
public final class FaceTracker {
    public let model: LandmarkModel
    public let finder: FaceFinder
    private let background: BackgroundFaceFinder?
    private let uprightCheck: UprightFaceCheck
    /// Re-detect at least this often even while tracking (seconds).
    public var redetectIntervalSeconds: Double
    /// A tracked fit below this confidence triggers an immediate re-detection.
    public var redetectConfidence: Double
    /// Faces whose best fit stays below this confidence are reported as lost.
    public var minimumConfidence: Double
    /// Largest shift of the varied box, as a fraction of its side.
    public var ditherShift = 0.02
    /// Largest growth or shrinkage of the varied box on each side, as a fraction of its side.
    public var ditherGrowth = 0.015

    private var stabilizer = LandmarkStabilizer()
    private var trackedBox: FaceBox?
    private var lastDetectionTime: Double?
    private var fits = 0

    /// How many frames ran the finder (for diagnostics and benchmarks).
    public private(set) var detectorRuns = 0
    /// The box the last landmark fit used.
    public private(set) var lastFitBox: FaceBox?
    /// How the face of the last frame stands (nil without one): fits of a face that is not
    /// `.upright` are implausible and not to be reported.
    public private(set) var uprightness: FaceUprightness?
    /// The last face the finder found (its box, with the HOG filter that found it) and the stage
    /// that found it; nil before the first.
    public private(set) var lastFound: (box: FaceBox, stage: FaceFinderStage)?

    public init(model: LandmarkModel, finding: FaceFinding = FaceFinding(), redetectIntervalSeconds: Double = 2,
                redetectConfidence: Double = 0.3, minimumConfidence: Double = 0.1) throws {
        self.model = model
        finder = try FaceFinder(cnnModelPath: finding.cnnModelPath)
        background = finding.background ? try BackgroundFaceFinder(cnnModelPath: finding.cnnModelPath) : nil
        uprightCheck = UprightFaceCheck(cnnModelPath: finding.cnnModelPath, rule: finding.uprightRule)
        self.redetectIntervalSeconds = redetectIntervalSeconds
        self.redetectConfidence = redetectConfidence
        self.minimumConfidence = minimumConfidence
    }

    deinit { background?.stop() }

    /// Forgets the tracked face (the next frame looks for one).
    public func reset() {
        trackedBox = nil
        lastDetectionTime = nil
        uprightness = nil
        stabilizer.reset()
    }

    /// The face in `image` (captured at `timeSeconds`), or nil if there is none.
    public func process(_ image: GrayImage, timeSeconds: Double) throws -> FaceObservation? {
        let detectionDue = lastDetectionTime.map { timeSeconds - $0 >= redetectIntervalSeconds || timeSeconds < $0 } ?? true
        var tracked: (fit: FaceLandmarks, confidence: Double)?
        if let box = trackedBox {
            let fit = self.fit(image, box: dithered(box))
            let confidence = model.meanShape.confidence(of: fit)
            if confidence >= redetectConfidence {
                tracked = (fit, confidence)
                if !detectionDue { return observe(fit, confidence: confidence, stage: nil, image: image, time: timeSeconds) }
            }
        }
        // A periodic look while tracking needs only the look around the face: it is known to be there.
        if let found = try find(image, timeSeconds: timeSeconds, cheapOnly: tracked != nil) {
            let fit = self.fit(image, box: found.box)
            let confidence = model.meanShape.confidence(of: fit)
            if confidence >= minimumConfidence {
                try judgeUprightness(found, fit: fit, image: image)
                return observe(fit, confidence: confidence, stage: found.stage, image: image, time: timeSeconds)
            }
        }
        // The periodic look missed a face that tracking still holds well: keep it.
        if let tracked { return observe(tracked.fit, confidence: tracked.confidence, stage: nil, image: image, time: timeSeconds) }
        trackedBox = nil
        uprightness = nil
        stabilizer.reset()
        return nil
    }

    /// The verdict on a face the finder just found, whose landmarks are `fit`: when a HOG stage
    /// found it, upright unless the rule finds the fit at odds with the filter that found it
    /// (`UprightRule.verdict`); else the check's (the CNN's faces). A periodic look around a face
    /// tracked as upright keeps it upright: only acquisitions, and looks at a face not upright,
    /// are judged (a tracked head turning past a side filter's view is not dropped for 2 s).
    private func judgeUprightness(_ found: (box: FaceBox, stage: FaceFinderStage), fit: FaceLandmarks,
                                  image: GrayImage) throws {
        lastFound = found
        if found.stage == .hogNearby, uprightness == .upright { return }
        // The fit's yaw (one pose estimate, once per find), only where the rule uses it.
        let yaw: Double? = uprightCheck.rule.judgesFits
            ? HeadPoseEstimator(intrinsics: CameraIntrinsics(width: image.width, height: image.height)).estimate(fit).yawDegrees
            : nil
        let outline = yaw.map { _ in UprightRule.outlineTurn(of: fit) }
        switch found.stage {
        case .hogShrunk, .hogNearby, .hogFull, .hogEqualized:
            uprightness = try uprightCheck.verdict(onFind: found.box, filter: found.box.hogFilter, in: image, fitYawDegrees: yaw,
                                                   outlineTurn: outline)
        case .cnnShrunk, .cnnFull:
            uprightness = try uprightCheck.uprightness(of: found.box, in: image, fitYawDegrees: yaw, outlineTurn: outline)
        }
    }

    /// The finder's answer for this frame. A followed face (`trackedBox`) is looked for around
    /// itself first; a periodic look (`cheapOnly`) stops there. Otherwise the cascade: in line, or
    /// (live) the first stage here and the rest from the background finder, which hands back a box
    /// found in an earlier frame.
    private func find(_ image: GrayImage, timeSeconds: Double, cheapOnly: Bool) throws -> (box: FaceBox, stage: FaceFinderStage)? {
        detectorRuns += 1
        lastDetectionTime = timeSeconds
        if let trackedBox, let found = try finder.findNearby(trackedBox, in: image) { return found }
        if cheapOnly { return nil }
        guard let background else { return try finder.find(image, timeSeconds: timeSeconds) }
        if let found = try finder.find(image, timeSeconds: timeSeconds, cheapOnly: true) { return found }
        if let found = try background.takeResult() { return found }
        background.submit(image)
        return nil
    }

    private func fit(_ image: GrayImage, box: FaceBox) -> FaceLandmarks {
        lastFitBox = box
        fits += 1
        return model.fit(image, box: box)
    }

    /// Records the fit of a followed face and places the next frame's box.
    private func observe(_ fit: FaceLandmarks, confidence: Double, stage: FaceFinderStage?, image: GrayImage,
                         time: Double) -> FaceObservation? {
        let landmarks = stabilizer.update(fit, timeSeconds: time)
        trackedBox = nextBox(for: landmarks, in: image)
        return FaceObservation(landmarks: landmarks, fit: fit, confidence: confidence, detected: stage != nil, stage: stage?.rawValue)
    }

    /// The tracked box varied for this fit: a point of a golden-angle spiral (up to `ditherShift`
    /// of the side from the box) and a growth from a slower sine, so any run of fits spreads
    /// evenly. The first fit after (re)acquiring a face uses the box itself.
    private func dithered(_ box: FaceBox) -> FaceBox {
        guard stabilizer.depth > 0 else { return box }
        let side = Double(box.width)
        let k = Double(fits % 16)
        let radius = ditherShift * side * ((k + 1) / 16).squareRoot()
        let angle = k * 2.399963229728653
        let dx = Int((radius * cos(angle)).rounded()), dy = Int((radius * sin(angle)).rounded())
        let grow = Int((ditherGrowth * side * sin(Double(fits) * 1.7)).rounded())
        return FaceBox(left: box.left + dx - grow, top: box.top + dy - grow, right: box.right + dx + grow,
                       bottom: box.bottom + dy + grow)
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

/// The finder's costly stages on a thread of their own (live input): the frame thread hands it a
/// frame when it has none to work on and picks up the box it found some frames later.
final class BackgroundFaceFinder: @unchecked Sendable {
    private let finder: FaceFinder
    private let condition = NSCondition()
    private var pending: GrayImage?
    private var result: (box: FaceBox, stage: FaceFinderStage)?
    private var failure: (any Error)?
    private var busy = false
    private var stopped = false
    private var thread: Thread?

    init(cnnModelPath: String?) throws {
        finder = try FaceFinder(cnnModelPath: cnnModelPath)
        // The thread holds the finder until `stop()` ends its loop.
        let thread = Thread { self.loop() }
        thread.name = "gazerec.face-finder"
        self.thread = thread
        thread.start()
    }

    /// Gives the finder `image` unless it is still looking at an earlier one.
    func submit(_ image: GrayImage) {
        condition.lock()
        defer { condition.unlock() }
        guard !busy, pending == nil, !stopped else { return }
        pending = image
        condition.signal()
    }

    /// The face found since the last call, if any; rethrows a detector failure.
    func takeResult() throws -> (box: FaceBox, stage: FaceFinderStage)? {
        condition.lock()
        defer { condition.unlock() }
        if let failure {
            self.failure = nil
            throw failure
        }
        let found = result
        result = nil
        return found
    }

    /// Ends the thread after the frame in hand (waits for it).
    func stop() {
        condition.lock()
        stopped = true
        pending = nil
        condition.broadcast()
        while busy { condition.wait() }
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while pending == nil && !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                return
            }
            let image = pending!
            pending = nil
            busy = true
            condition.unlock()
            var found: (box: FaceBox, stage: FaceFinderStage)?
            var error: (any Error)?
            do { found = try finder.findWithLaterStages(image) } catch let caught { error = caught }
            condition.lock()
            busy = false
            if let found { result = found }
            if let error { failure = error }
            condition.broadcast()
            condition.unlock()
        }
    }
}
