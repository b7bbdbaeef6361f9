import ArgumentParser
import GazeCapture
import GazeModel

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

    @Option(name: .customLong("camera-control"),
            help: ArgumentHelp("Set a camera control when it opens, NAME=VALUE as 'gazerec devices' lists them "
                               + "(repeatable, set in order), e.g. exposure_auto=1 to stop auto-exposure hunting.",
                               valueName: "name=value"))
    var cameraControls: [CameraControlSetting] = []

    func validate() throws {
        if device != nil && input != nil { throw ValidationError("Use either --device or --input, not both.") }
        if input != nil && !cameraControls.isEmpty {
            throw ValidationError("--camera-control sets a camera's controls; a video given with --input has none.")
        }
    }

    /// The camera (newest frames first) or the video (every frame; at its own pace when `paced`).
    /// `mirror`: turn the frames back left to right (a camera that reports its flip on is turned back
    /// anyway); `rotation`: then turn them clockwise.
    func request(paced: Bool, mirror: Bool, rotation: FrameRotation) -> FrameSourceRequest {
        .cameraOrFile(file: input, device: device, width: resolution?.width, height: resolution?.height,
                      framesPerSecond: fps.rawValue, controls: cameraControls,
                      pacing: paced ? .ownPace : .asFastAsPossible, mirror: mirror, rotation: rotation)
    }
}

extension CameraControlSetting: ExpressibleByArgument {}
