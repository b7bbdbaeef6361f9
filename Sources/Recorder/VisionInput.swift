import GazeCalibration
import GazeCapture
import GazeModel
import GazeVision

/// A frame source opened, with the vision pipeline for its frames: the set-up that recording,
/// calibration, validation and video analysis share (the landmark model, the source, `FramePipeline`).
public final class VisionInput {
    public let opened: OpenedFrameSource
    public let pipeline: FramePipeline
    /// Frames read ahead losslessly on a second thread (nil: in line).
    private let readAhead: Int?

    /// `modelFirst`: the model loads before the source opens, so no live frame waits for it;
    /// otherwise the source starts first, so a file is decoded ahead (`readAhead` frames, on a
    /// second core) while the model loads. `startNow` false leaves the source to `start(pacedFrom:)`
    /// (a recording paces a file from its session's start). `finding` says how the pipeline finds
    /// faces in the opened source (a camera may run the costly stages off the frame thread). Head
    /// pose is measured with the face model `headPoseModel` names (a calibration's, when one is
    /// validated), and with the focal length `FocalLength` chooses: `focalLengthPixels` (given for
    /// the run), else the calibration's (`calibrationFocalLengthPixels`), else the frame width.
    public init(modelPath: String, source request: FrameSourceRequest, modelFirst: Bool = true, readAhead: Int? = 8,
                startNow: Bool = true, focalLengthPixels: Double?, calibrationFocalLengthPixels: Double? = nil,
                headPoseModel: String = HeadPoseModelName.current,
                finding: (OpenedFrameSource) throws -> FaceFinding) throws {
        let focalLengthPixels = FocalLength.pixels(given: focalLengthPixels, calibration: calibrationFocalLengthPixels)
        let early = modelFirst ? try LandmarkModel.shared(path: modelPath) : nil
        opened = try request.open()
        self.readAhead = readAhead
        if startNow { _ = opened.start(readAhead: readAhead) }
        do {
            let model = try early ?? LandmarkModel.shared(path: modelPath)
            pipeline = try FramePipeline(model: model, width: opened.source.width, height: opened.source.height,
                                         focalLengthPixels: focalLengthPixels, headPoseModel: headPoseModel,
                                         finding: try finding(opened))
        } catch {
            opened.stop()
            throw error
        }
    }

    /// The started source's frames (started now, if it was not).
    public var frames: FrameSource {
        opened.start(readAhead: readAhead)
    }

    /// Starts the source, a file replayed at its own pace paced from `originMonotonic`
    /// (CLOCK_MONOTONIC seconds); its frames.
    public func start(pacedFrom originMonotonic: Double) -> FrameSource {
        opened.start(pacedFrom: originMonotonic, readAhead: readAhead)
    }

    /// Stops the source (a camera's capture, a file's reading ahead).
    public func stop() {
        opened.stop()
    }
}
