import ArgumentParser
import GazeCapture
import GazeModel
import JSONStream
import Recorder

/// Where frames come from for `calibrate` and `validate`: a camera, or a video standing in for one.
struct CaptureOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Camera device (default /dev/video0).", valueName: "path"))
    var device: String?

    @Option(help: ArgumentHelp("Use this video instead of a camera (played at its own pace when interactive).",
                               valueName: "video"))
    var input: String?

    @Option(help: ArgumentHelp("Camera frame size (WxH, default 640x480).", valueName: "WxH"))
    var resolution: Size2D?

    @Option(help: "Frame rate to request from the camera.")
    var fps: FrameRate = .thirty

    func validate() throws {
        if device != nil && input != nil { throw ValidationError("Use either --device or --input, not both.") }
    }

    /// The camera (newest frames first) or the video (every frame; at its own pace when `paced`),
    /// with its kind (`camera`/`file`) and name.
    func open(paced: Bool) throws -> (source: PrefetchingFrameSource, kind: String, name: String) {
        if let input {
            let video = try VideoFileSource(path: input)
            let timed: FrameSource = paced ? PacedFrameSource(video, originMonotonic: SystemClock.monotonic()) : video
            return (PrefetchingFrameSource(timed, policy: .lossless, capacity: 8), "file", input)
        }
        let size = resolution ?? Size2D(width: 640, height: 480)
        let path = device ?? "/dev/video0"
        let camera = try V4L2Camera(configuration: .init(path: path, width: size.width, height: size.height,
                                                         framesPerSecond: fps.rawValue))
        return (PrefetchingFrameSource(camera, policy: .keepNewest, capacity: 2), "camera", path)
    }
}
