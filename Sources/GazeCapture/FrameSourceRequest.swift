/// What to read frames from, and how: the one description every command opens its frames by.
///
/// A camera is read on its own thread keeping the newest frames; a video is read losslessly, at
/// its own pace (a file standing in for a camera) or as fast as possible. `mirror` turns every
/// frame back left to right; a camera whose horizontal-flip control is on is turned back anyway.
/// `open()` turns the request into an `OpenedFrameSource`.
public struct FrameSourceRequest: @unchecked Sendable {
    /// Where the frames come from.
    public enum Input {
        /// A V4L2 camera; its frames carry Unix time.
        case camera(V4L2Camera.Configuration)
        /// A video file standing in for a camera; its frames carry their presentation times.
        case file(path: String)
        /// A video whose frames were stored before: frame i gets index i and the time `timestamps[i]`;
        /// a video known to lack `missingFrames` of them is paired with them by time (`RestampedFrameSource`).
        case savedVideo(path: String, timestamps: [Double], missingFrames: Int = 0)
        /// Any frame source whose timestamps are Unix time (embedding, tests).
        case frames(FrameSource, name: String)
    }

    /// How a video file's frames are released.
    public enum Pacing: Sendable, Equatable {
        /// Each frame when its presentation time has come, counted from when reading starts.
        case ownPace
        /// Every frame as soon as it is decoded.
        case asFastAsPossible
    }

    public var input: Input
    /// Turn every frame back left to right (a selfie view).
    public var mirror: Bool
    /// Turn every frame clockwise (a camera mounted sideways), after the mirror is turned back. A
    /// video's own rotation (its container's display matrix) is applied before, by the decoder.
    public var rotation: FrameRotation
    /// How a file is released (cameras deliver at their own rate, saved videos as fast as possible).
    public var pacing: Pacing

    public init(_ input: Input, mirror: Bool = false, pacing: Pacing = .asFastAsPossible, rotation: FrameRotation = .none) {
        self.input = input
        self.mirror = mirror
        self.pacing = pacing
        self.rotation = rotation
    }

    /// A camera.
    public static func camera(_ configuration: V4L2Camera.Configuration, mirror: Bool = false,
                              rotation: FrameRotation = .none) -> FrameSourceRequest {
        FrameSourceRequest(.camera(configuration), mirror: mirror, rotation: rotation)
    }

    /// A video file replayed as if it were a camera: at its own pace, or as fast as possible.
    public static func file(path: String, asFastAsPossible: Bool, mirror: Bool = false,
                            rotation: FrameRotation = .none) -> FrameSourceRequest {
        FrameSourceRequest(.file(path: path), mirror: mirror, pacing: asFastAsPossible ? .asFastAsPossible : .ownPace,
                           rotation: rotation)
    }

    /// Frames already given (their timestamps Unix time).
    public static func frames(_ source: FrameSource, name: String) -> FrameSourceRequest {
        FrameSourceRequest(.frames(source, name: name))
    }

    /// A camera at `device` when no `file` is given (the camera's defaults for what is nil), else the file.
    public static func cameraOrFile(file: String?, device: String?, width: Int?, height: Int?, framesPerSecond: Int?,
                                    controls: [CameraControlSetting], pacing: Pacing, mirror: Bool,
                                    rotation: FrameRotation = .none) -> FrameSourceRequest {
        if let file { return FrameSourceRequest(.file(path: file), mirror: mirror, pacing: pacing, rotation: rotation) }
        var configuration = V4L2Camera.Configuration()
        if let device { configuration.path = device }
        if let width, let height { (configuration.width, configuration.height) = (width, height) }
        if let framesPerSecond { configuration.framesPerSecond = framesPerSecond }
        configuration.controls = controls
        return .camera(configuration, mirror: mirror, rotation: rotation)
    }

    /// Opens the camera or video (a camera starts capturing on its own thread at once).
    public func open() throws -> OpenedFrameSource {
        try OpenedFrameSource(self)
    }
}
