import GazeCapture
import GazeModel
import GazeVision

/// A frame source opened and started, with the vision pipeline for its frames: the set-up that
/// calibration, validation and video analysis share (the landmark model, the source, `FramePipeline`).
public final class VisionInput {
    public let opened: OpenedFrameSource
    /// The started source's frames.
    public let frames: FrameSource
    public let pipeline: FramePipeline

    /// `modelFirst`: the model loads before the source starts, so no live frame waits for it;
    /// otherwise the source starts first, so a file is decoded ahead (`readAhead` frames, on a
    /// second core) while the model loads. `finding` says how the pipeline finds faces in the
    /// opened source (a camera may run the costly stages off the frame thread). Head pose is
    /// measured with the face model `headPoseModel` names (a calibration's, when one is validated).
    public init(modelPath: String, source request: FrameSourceRequest, modelFirst: Bool = true, readAhead: Int? = 8,
                focalLengthPixels: Double?, headPoseModel: String = HeadPoseModelName.current,
                finding: (OpenedFrameSource) throws -> FaceFinding) throws {
        let early = modelFirst ? try LandmarkModel.shared(path: modelPath) : nil
        opened = try request.open()
        frames = opened.start(readAhead: readAhead)
        do {
            let model = try early ?? LandmarkModel.shared(path: modelPath)
            pipeline = try FramePipeline(model: model, width: frames.width, height: frames.height,
                                         focalLengthPixels: focalLengthPixels, headPoseModel: headPoseModel,
                                         finding: try finding(opened))
        } catch {
            opened.stop()
            throw error
        }
    }

    /// Stops the source (a camera's capture, a file's reading ahead).
    public func stop() {
        opened.stop()
    }
}
