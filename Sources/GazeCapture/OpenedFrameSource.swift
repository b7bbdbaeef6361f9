import GazeModel

/// A frame source once opened: what it is, and how its frames reach the pipeline.
///
/// WHAT THIS OBJECT REPRESENTS
///   The camera or video of a `FrameSourceRequest`, turned back when mirrored, then turned by the
///   request's rotation. `start` gives the
///   frames the pipeline reads: a camera's own keep-newest reader; a file paced from the given
///   moment when asked, read ahead losslessly on its own thread (or in line, with no read-ahead).
/// THREAD SAFETY
///   One consumer thread: `start`, the frames, `droppedFrames` and `stop`.
public final class OpenedFrameSource {
    /// The frames as opened (a camera's already read on their own thread), before pacing.
    public let source: FrameSource
    /// Camera or file (saved videos and given frames count as files).
    public let kind: RecordingFacts.SourceKind
    /// The device path, file path or given name.
    public let path: String
    /// The V4L2 camera, when reading one.
    public let camera: V4L2Camera?
    /// The video file, when reading one (its metadata: creation time, frame count).
    public let video: VideoFileSource?
    /// The saved video's frames with their stored times, when reading one (did the counts agree?).
    public let restamped: RestampedFrameSource?
    /// The rate asked of the camera, else the video's own.
    public let requestedFramesPerSecond: Double
    /// The camera's card name, the file's name, or the given name.
    public let deviceModel: String
    /// A file standing in for a camera: its frame times count from when reading starts.
    public let isReplay: Bool
    /// Whether a replay waits for each frame's presentation time.
    public let paced: Bool
    /// Why frames are turned back left to right, if they are.
    public let mirrored: RecordingFacts.MirrorReason?
    private var running: FrameSource?

    init(_ request: FrameSourceRequest) throws {
        let mirror = request.mirror
        switch request.input {
        case .camera(let configuration):
            let camera = try V4L2Camera(configuration: configuration)
            mirrored = mirror ? .option : camera.flipsHorizontally ? .camera : nil
            source = PrefetchingFrameSource(Self.turned(camera, mirror: mirrored != nil, rotation: request.rotation),
                                            policy: .keepNewest, capacity: 2)
            (kind, path, self.camera, video, restamped) = (.camera, configuration.path, camera, nil, nil)
            (requestedFramesPerSecond, deviceModel) = (Double(configuration.framesPerSecond), camera.name)
            (isReplay, paced) = (false, false)
        case .file(let path):
            let video = try VideoFileSource(path: path)
            mirrored = mirror ? .option : nil
            source = Self.turned(video, mirror: mirror, rotation: request.rotation)
            (kind, self.path, camera, self.video, restamped) = (.file, path, nil, video, nil)
            (requestedFramesPerSecond, deviceModel) = (video.framesPerSecond, video.name)
            (isReplay, paced) = (true, request.pacing == .ownPace)
        case .savedVideo(let path, let timestamps, let missingFrames):
            let video = try VideoFileSource(path: path)
            let restamped = RestampedFrameSource(video, timestamps: timestamps, missingFrames: missingFrames)
            mirrored = mirror ? .option : nil
            source = Self.turned(restamped, mirror: mirror, rotation: request.rotation)
            (kind, self.path, camera, self.video, self.restamped) = (.file, path, nil, video, restamped)
            (requestedFramesPerSecond, deviceModel) = (video.framesPerSecond, path)
            (isReplay, paced) = (false, false)
        case .frames(let frames, let name):
            mirrored = mirror ? .option : nil
            source = Self.turned(frames, mirror: mirror, rotation: request.rotation)
            (kind, path, camera, video, restamped) = (.file, name, nil, nil, nil)
            (requestedFramesPerSecond, deviceModel) = (frames.framesPerSecond, name)
            (isReplay, paced) = (false, false)
        }
    }

    /// `source` turned back left to right when `mirror`, then turned clockwise by `rotation`.
    private static func turned(_ source: FrameSource, mirror: Bool, rotation: FrameRotation) -> FrameSource {
        let mirrored = mirror ? MirroredFrameSource(source) : source
        return rotation == .none ? mirrored : RotatedFrameSource(mirrored, rotation: rotation)
    }

    /// The frames the pipeline reads: a camera's own reader; a file paced from `originMonotonic`
    /// (CLOCK_MONOTONIC seconds) when replayed at its own pace, read ahead losslessly by
    /// `readAhead` frames on its own thread (nil: in line, on the caller's thread).
    public func start(pacedFrom originMonotonic: Double = SystemClock.monotonic(), readAhead: Int? = 8) -> FrameSource {
        if let running { return running }
        let frames: FrameSource
        if source is PrefetchingFrameSource {
            frames = source
        } else {
            let timed = paced ? PacedFrameSource(source, originMonotonic: originMonotonic) : source
            frames = readAhead.map { PrefetchingFrameSource(timed, policy: .lossless, capacity: $0) } ?? timed
        }
        running = frames
        return frames
    }

    /// Frames lost so far: the driver's sequence gaps and the keep-newest reader's drops.
    public var droppedFrames: Int {
        (camera?.droppedFrames ?? 0) + ((running as? PrefetchingFrameSource)?.droppedFrames ?? 0)
    }

    /// Stops the reading thread, if there is one, and waits for it (the source is then free to close).
    public func stop() {
        ((running ?? source) as? PrefetchingFrameSource)?.stop()
    }
}
