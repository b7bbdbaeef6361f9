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
public final class FramePipeline {
    public let tracker: FaceTracker
    public private(set) var extractor: EyeFeatureExtractor
    public private(set) var framesProcessed = 0
    public private(set) var framesWithFace = 0

    /// A pipeline for frames of `width` × `height`; `focalLengthPixels` defaults to the width.
    public init(model: LandmarkModel, width: Int, height: Int, focalLengthPixels: Double? = nil,
                finding: FaceFinding = FaceFinding()) throws {
        tracker = try FaceTracker(model: model, finding: finding)
        extractor = EyeFeatureExtractor(intrinsics: CameraIntrinsics(width: width, height: height,
                                                                     focalLengthPixels: focalLengthPixels))
    }

    /// Processes one frame.
    public func process(_ frame: Frame) throws -> (FrameFeatures, BlinkEvent?) {
        let face = try tracker.process(frame.image, timeSeconds: frame.timestampSeconds)
        framesProcessed += 1
        if face != nil { framesWithFace += 1 }
        return extractor.process(frameIndex: frame.index, timestampSeconds: frame.timestampSeconds,
                                 image: frame.image, face: face)
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
        let channel = BoundedChannel<(Frame, FaceObservation?)>(capacity: 4)
        // Handed over: until the channel finishes, only the new thread touches the source and tracker.
        nonisolated(unsafe) let tracker = self.tracker
        nonisolated(unsafe) let source = source
        let thread = Thread {
            do {
                while let frame = try source.nextFrame() {
                    let face = try tracker.process(frame.image, timeSeconds: frame.timestampSeconds)
                    guard channel.send((frame, face)) else { break }
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
        while let (frame, face) = try channel.receive() {
            framesProcessed += 1
            if face != nil { framesWithFace += 1 }
            let result = extractor.process(frameIndex: frame.index, timestampSeconds: frame.timestampSeconds,
                                           image: frame.image, face: face)
            try handle(result.0, result.1)
        }
    }

    /// Ends the stream (reports a closure still in progress).
    public func finish() -> BlinkEvent? { extractor.finish() }
}
