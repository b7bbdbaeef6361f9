import Channels
import Foundation
import GazeCapture
import GazeCore
import GazeModel

/// The per-frame pipeline: frame → face (detector or tracking) → 68 landmarks → eye features.
///
/// 1. Face: `FaceTracker` (the `FaceFinder` cascade when needed, else the box from the last landmarks).
/// 2. Landmarks: dlib's 68-point model evaluated in Swift (sub-pixel), scored for plausibility
///    (confidence) and averaged over the fits of a still head.
/// 3. Eyes: aspect ratio → openness → blinks; pupils by means of gradients.
/// 4. Head pose: PnP against a generic 3-D face.
/// 5. Tracking state per frame.
///
/// A face the frontal detector does not find upright (`FaceUprightness`: a rotated picture, a
/// profile only the CNN finds) is followed but not reported: its frames go on as `missing`, with
/// no landmarks, eyes or pose, and are counted in `framesNotUpright` (the data a warning needs).
public final class FramePipeline {
    public let tracker: FaceTracker
    public private(set) var extractor: EyeFeatureExtractor
    public private(set) var framesProcessed = 0
    public private(set) var framesWithFace = 0
    /// Frames whose face was found but not upright (reported as `missing`).
    public private(set) var framesNotUpright = 0
    /// The verdict on the last face that was not upright (nil while every face was); also a face
    /// the `noFaceProbe` found only in the frame turned, while none was reported.
    public private(set) var lastNotUpright: FaceUprightness?
    /// Looks, once a second while no face is reported, for a face turned or too small to find.
    public let noFaceProbe = NoFaceProbe()
    /// The frames' width and height in pixels.
    public let width: Int
    public let height: Int
    /// The seating check of the stream's first second and whom to tell, while it runs.
    private var firstSecond: (check: SeatingCheck, tell: (SeatingReport) -> Void)?

    /// A pipeline for frames of `width` × `height`; `focalLengthPixels` defaults to the width, and
    /// head pose is measured with the face model named `headPoseModel` (`HeadPoseModelName`: this
    /// version's, or the one a calibration being applied was made with).
    public init(model: LandmarkModel, width: Int, height: Int, focalLengthPixels: Double? = nil,
                headPoseModel: String = HeadPoseModelName.current, finding: FaceFinding = FaceFinding()) throws {
        guard let faceModel = FaceModel3D.named(headPoseModel) else {
            throw VisionError.headPoseModelUnknown(name: headPoseModel)
        }
        tracker = try FaceTracker(model: model, finding: finding)
        (self.width, self.height) = (width, height)
        extractor = EyeFeatureExtractor(intrinsics: CameraIntrinsics(width: width, height: height,
                                                                     focalLengthPixels: focalLengthPixels),
                                        model: faceModel)
    }

    /// Finds blinks with `rule` instead of the shipped one (to rank the rules on labelled clips);
    /// before the first frame.
    public func useBlinkRule(_ rule: BlinkRule) {
        precondition(framesProcessed == 0, "the blink rule is chosen before the first frame")
        extractor.blinkDetector = rule.detector
    }

    /// Processes one frame.
    public func process(_ frame: Frame) throws -> (FrameFeatures, BlinkEvent?) {
        let face = try tracker.process(frame.image, timeSeconds: frame.timestampSeconds)
        return features(frame, face: face, uprightness: tracker.uprightness)
    }

    /// The frame's features from the tracker's answer; a face that is not upright is not reported.
    private func features(_ frame: Frame, face: FaceObservation?,
                          uprightness: FaceUprightness?) -> (FrameFeatures, BlinkEvent?) {
        framesProcessed += 1
        var reported = face
        if face != nil, let uprightness, !uprightness.isTrusted {
            framesNotUpright += 1
            lastNotUpright = uprightness
            reported = nil
        }
        if reported != nil { framesWithFace += 1 }
        // Advisory only (a warning, the seating advice): a detector that fails here ends nothing.
        if case .turned(let degrees)? = try? noFaceProbe.frame(frame.image, timeSeconds: frame.timestampSeconds,
                                                                  faceReported: reported != nil) {
            lastNotUpright = .turned(clockwiseDegrees: degrees)
        }
        let result = extractor.process(frameIndex: frame.index, timestampSeconds: frame.timestampSeconds,
                                       image: frame.image, face: reported)
        if firstSecond != nil, var report = firstSecond!.check.add(result.0) {
            let tell = firstSecond!.tell
            firstSecond = nil
            report.explainNoFace(noFaceProbe.finding)
            tell(report)
        }
        return result
    }

    /// Checks the seating (`SeatingCheck`) over the stream's first second and calls `tell` once
    /// with its report, on the thread that handles the frames, when the first frame after that
    /// second has been processed (never, when the stream is shorter).
    public func checkSeatingOverFirstSecond(_ thresholds: SeatingThresholds = SeatingThresholds(),
                                            tell: @escaping (SeatingReport) -> Void) {
        firstSecond = (SeatingCheck(frameWidth: width, frameHeight: height, thresholds: thresholds), tell)
    }

    /// Processes every frame of `source` in order, calling `handle` for each on the caller's thread.
    ///
    /// With two cores or more (`overlapped`, by default whether the process may use more than
    /// one), two stages overlap: a second thread runs the face stage (detector and landmark fit,
    /// the costly part), this thread the eye features and `handle`. Frames are handed over
    /// losslessly in order, so the results are exactly those of calling `process` frame by frame,
    /// which is what happens on one core (the hand-overs would only cost). An error from either
    /// side stops both and is rethrown.
    public func processAll(_ source: FrameSource, overlapped: Bool = AvailableCores.count > 1,
                           handle: (FrameFeatures, BlinkEvent?) throws -> Void) throws {
        guard overlapped else {
            while let frame = try source.nextFrame() {
                let (features, event) = try process(frame)
                try handle(features, event)
            }
            return
        }
        let channel = BoundedChannel<(Frame, FaceObservation?, FaceUprightness?)>(capacity: 4)
        // Handed over: until the channel finishes, only the new thread touches the source and tracker.
        nonisolated(unsafe) let tracker = self.tracker
        nonisolated(unsafe) let source = source
        let thread = Thread {
            do {
                while let frame = try source.nextFrame() {
                    let face = try tracker.process(frame.image, timeSeconds: frame.timestampSeconds)
                    guard channel.send((frame, face, tracker.uprightness)) else { break }
                }
                channel.finish()
            } catch {
                channel.finish(throwing: error)
            }
        }
        thread.name = "gazerec.vision"
        thread.start()
        defer {
            channel.cancel()
            channel.waitUntilFinished()
        }
        while let (frame, face, uprightness) = try channel.receive() {
            let result = features(frame, face: face, uprightness: uprightness)
            try handle(result.0, result.1)
        }
    }

    /// Ends the stream (reports a closure still in progress).
    public func finish() -> BlinkEvent? { extractor.finish() }
}
