import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import SessionStore
import Synchronization

/// Where a recording's frames come from.
public enum RecordingSource: @unchecked Sendable {
    /// A V4L2 camera.
    case camera(V4L2Camera.Configuration)
    /// A video file replayed as if it were a camera: at its own pace, or as fast as possible.
    case file(path: String, asFastAsPossible: Bool)
    /// Any frame source whose timestamps are Unix time (embedding, tests).
    case frames(FrameSource, name: String)
}

/// Everything a recording needs to know before it starts.
public struct RecordingConfiguration: @unchecked Sendable {
    public var source: RecordingSource
    public var databasePath: String
    public var modelPath: String
    public var appID: String
    public var blendShapes: [BlendShapeName]
    public var screenWidth: Double
    public var screenHeight: Double
    /// UIInterfaceOrientation raw value written with every sample.
    public var orientation: Int
    public var maximumDurationSeconds: Double?
    public var focalLengthPixels: Double?
    /// Largest delay between a frame and its sample being committed.
    public var flushIntervalSeconds: Double = 0.25
    /// The calibration mapping eye features to the scanPath; nil records no scanPath.
    public var calibration: AppliedCalibration?
    /// Smoothing of the gaze stream (with a calibration).
    public var smoothing: GazeSmoothing = .none
    /// How faces are found where none is tracked (the CNN stages, off the frame thread for cameras).
    public var faceFinding = FaceFinding()
    /// The source is mirrored (a selfie view): turn its frames back left to right. A camera that
    /// reports its horizontal-flip control on is turned back without being told.
    public var mirror = false
    /// Where to keep the analysed frames as a lossless video: a file, or a folder to hold
    /// `<session id>.mkv`; nil keeps none.
    public var videoDestination: VideoDestination?
    /// Event markers read line by line while recording (a pipe, a named pipe, a growing file), if any.
    public var markerInput: MarkerFeed.Input?
    /// Told about marker lines that could not be stored as given (on the marker feed's thread).
    public var markerWarning: MarkerFeed.Warning = { _ in }

    public init(source: RecordingSource, databasePath: String, modelPath: String, appID: String,
                blendShapes: [BlendShapeName], screenWidth: Double, screenHeight: Double, orientation: Int,
                maximumDurationSeconds: Double?, focalLengthPixels: Double?) {
        self.source = source
        self.databasePath = databasePath
        self.modelPath = modelPath
        self.appID = appID
        self.blendShapes = blendShapes
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.orientation = orientation
        self.maximumDurationSeconds = maximumDurationSeconds
        self.focalLengthPixels = focalLengthPixels
    }
}

/// Where a recording's video goes.
public enum VideoDestination: Sendable, Equatable {
    case file(String)
    /// A folder (created if missing) for `<session id>.mkv`.
    case folder(String)
}

/// How a recording ended.
public struct RecordingResult: Sendable {
    public var sessionID: String
    public var frames: Int
    public var framesWithFace: Int
    public var blinks: Int
    /// Blinks, long closures, blink rate and PERCLOS (nil without a face).
    public var eyes: EyeSummary?
    /// Scan-path samples recorded (0 without a calibration).
    public var gazeSamples: Int
    public var droppedFrames: Int
    public var durationSeconds: Double
    /// The video kept of the frames, if one was asked for.
    public var savedVideo: RecordingFacts.SavedVideo?
    /// Why the video ended before the recording did (a full disk), if it did.
    public var videoFailure: (any Error)?
    /// The error that ended the recording early (camera lost, unreadable file, disk full), if any.
    public var failure: (any Error)?
    /// Whether the session could be closed (false when the store itself failed: the committed
    /// samples stay readable and `repair` closes it later).
    public var closed: Bool
}

/// A thread-safe request to stop, set from signal handlers and `gazerec stop`.
public final class StopRequest: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public func request() { flag.store(true, ordering: .relaxed) }
    public var isRequested: Bool { flag.load(ordering: .relaxed) }
}

/// Records one session: source → vision pipeline → samples → the store, in batched transactions.
///
/// The loop, per frame: (1) the face stage on a second thread (detector or tracking, landmarks),
/// (2) eye features, blend shapes and head pose here, (3) samples into a pending batch, committed
/// every `flushIntervalSeconds` (≤ 250 ms), so a crash loses at most that much. The session row
/// exists from the first moment, without `endTime`; closing sets `endTime` and the extension data.
public final class Recorder {
    public let configuration: RecordingConfiguration
    public let stop: StopRequest

    public init(configuration: RecordingConfiguration, stop: StopRequest) {
        self.configuration = configuration
        self.stop = stop
    }

    private struct Stopped: Error {}

    /// Runs the recording until stopped, the duration or the file ends, or the source fails.
    /// `locked` is called once this recorder holds the database's recorder lock, `started` with
    /// the session id once the first frame has been processed, `warning` when the face has been
    /// missing for `RecordingSession.noFaceWarningSeconds` (once per such stretch).
    /// `sample` receives every frame's measurement, blend-shape values and gaze sample (with a
    /// calibration) as they are produced: the live stream and preview.
    public func run(locked: () -> Void = {}, started: (String) -> Void = { _ in },
                    progress: (RecorderStatus) -> Void = { _ in }, warning: (String) -> Void = { _ in },
                    sample: ((FrameMeasurement, [(String, Double)], GazeSample?) -> Void)? = nil) throws
        -> RecordingResult {
        // A file-size limit must give a write error (reported, committed samples kept), not kill us.
        signal(SIGXFSZ, SIG_IGN)
        let lock = try RecorderLock(databasePath: configuration.databasePath)
        defer { lock.release() }
        locked()
        let database = try SessionDatabase(path: configuration.databasePath)
        // A recorder that died left its session open: close it now.
        _ = try database.repairInterruptedSessions()

        // 1. Model (1–2 s to load: before the source starts, so no frame waits for it).
        let model = try LandmarkModel.shared(path: configuration.modelPath)

        // 2. Source and pipeline. Files start their (paced) reading only when the session begins.
        let input = try OpenedSource(configuration.source, mirror: configuration.mirror)
        let pipeline = try FramePipeline(model: model, width: input.source.width, height: input.source.height,
                                         focalLengthPixels: configuration.focalLengthPixels, finding: configuration.faceFinding)

        // 3. The session. Replayed frames are due at begin + their presentation time.
        let begin = SystemClock.unixTime()
        let beginMonotonic = SystemClock.monotonic()
        let cpuAtBegin = SystemClock.cpuSeconds()
        let replayStart = input.isReplay ? begin : nil
        var facts = RecordingFacts(
            version: GazerecVersion.current, sourceKind: input.camera == nil ? .file : .camera,
            sourceName: input.description, width: input.source.width, height: input.source.height,
            requestedFramesPerSecond: input.requestedFramesPerSecond, modelPath: configuration.modelPath)
        facts.headPoseModel = HeadPoseModelName.current
        facts.focalLengthPixels = configuration.focalLengthPixels
        facts.mirrored = input.mirrored
        if let camera = input.camera, !camera.appliedControls.isEmpty {
            facts.cameraControls = camera.appliedControls.map { .init(name: $0.name, value: $0.value) }
        }
        let sessionID = UUID().uuidString
        let saver = try configuration.videoDestination.map { destination -> VideoSaver in
            let path: String
            switch destination {
            case .file(let file): path = file
            case .folder(let folder):
                try SessionDatabase.createFolder(folder)
                path = (folder as NSString).appendingPathComponent(sessionID + ".mkv")
            }
            return try VideoSaver(path: path, width: input.source.width, height: input.source.height,
                                  title: "gazerec session \(sessionID)")
        }
        let session = try RecordingSession(
            database: database, id: sessionID, appID: configuration.appID, beginTimeSeconds: begin,
            device: DeviceInfo(model: input.deviceModel, screenWidth: configuration.screenWidth,
                               screenHeight: configuration.screenHeight, systemName: "Linux",
                               systemVersion: SystemClock.systemVersion()),
            facts: facts, calibration: configuration.calibration, smoothing: configuration.smoothing,
            orientation: configuration.orientation, blendShapes: configuration.blendShapes, recorderPID: getpid(),
            flushIntervalSeconds: configuration.flushIntervalSeconds, clock: SystemClock.monotonic)
        try lock.publish(RecorderInfo(pid: getpid(), sessionID: session.id, startedAt: begin))
        let markerFeed = configuration.markerInput.map {
            MarkerFeed(input: $0, database: database, sessionID: session.id, warning: configuration.markerWarning)
        }
        markerFeed?.start()
        let running = input.running(pacedFrom: beginMonotonic)
        defer { (running as? PrefetchingFrameSource)?.stop() }

        // 4. The loop: measurement → session (gaze, blend shapes, blinks, batched commits) → callbacks.
        var lastStatus = 0.0
        var lastTimestamp = begin
        var lagsMilliseconds: [Double] = []
        var failure: (any Error)?
        var warned = false
        var blendShapeRest = BlendShapeRest()
        let startMonotonic = SystemClock.monotonic()

        func status(_ state: String) -> RecorderStatus {
            let elapsed = SystemClock.monotonic() - startMonotonic
            return RecorderStatus(pid: getpid(), sessionID: session.id, source: input.description, elapsedSeconds: elapsed,
                                  frames: session.frames, framesWithFace: session.framesWithFace,
                                  achievedFramesPerSecond: elapsed > 0 ? Double(session.frames) / elapsed : 0,
                                  droppedFrames: input.droppedFrames(running), blinks: session.blinks, trackingState: state,
                                  updatedAt: SystemClock.unixTime(), warning: session.noFaceWarning,
                                  cpuPercentOfOneCore: elapsed > 0 ? 100 * (SystemClock.cpuSeconds() - cpuAtBegin) / elapsed : nil)
        }

        do {
            let frames: FrameSource = saver.map { saver in ObservedFrameSource(running) { saver.stage($0) } } ?? running
            try pipeline.processAll(frames) { features, event in
                // Camera frames carry Unix time; replayed files their presentation time from the start.
                let time = replayStart.map { $0 + features.timestampSeconds } ?? features.timestampSeconds
                lastTimestamp = time
                // Lag: from the frame's capture (or due) time to its features being ready.
                lagsMilliseconds.append((SystemClock.unixTime() - time) * 1000)
                let measurement = features.measurement(timestampSeconds: time)
                blendShapeRest.observe(features)
                let rest = blendShapeRest.rest
                let values: [(BlendShapeName, Double)] = features.face == nil ? [] : configuration.blendShapes.compactMap { name in
                    BlendShapeEstimator.value(name, features, rest: rest).map { (name, $0) }
                }
                let gaze = try session.record(measurement, blendShapeValues: values,
                                              blink: event.map { $0.shifted(by: replayStart ?? 0) })
                saver?.commit(index: features.frameIndex)
                if let sample { sample(measurement, values.map { ($0.0.rawValue, $0.1) }, gaze) }
                if session.frames == 1 { started(session.id) }
                let faceWarning = session.noFaceWarning
                if let faceWarning, !warned { warning(faceWarning) }
                warned = faceWarning != nil
                let now = SystemClock.monotonic()
                if now - lastStatus >= 0.5 {
                    lastStatus = now
                    let current = status(features.trackingState.rawValue)
                    current.write(databasePath: configuration.databasePath)
                    progress(current)
                }
                if stop.isRequested { throw Stopped() }
                if let limit = configuration.maximumDurationSeconds, now - startMonotonic >= limit { throw Stopped() }
            }
        } catch is Stopped {
        } catch {
            failure = error
        }

        // 5. Close: no more markers, the last samples, then endTime and the extension data.
        markerFeed?.finish()
        let video = saver?.finish()
        if let event = pipeline.finish() { session.record(blink: event.shifted(by: replayStart ?? 0)) }
        let final = status("ended")
        let endTime = input.camera == nil ? lastTimestamp : max(lastTimestamp, SystemClock.unixTime())
        var finalFacts = facts
        finalFacts.grantedFramesPerSecond = input.camera?.framesPerSecond ?? input.requestedFramesPerSecond
        // A file read as fast as possible has no rate or lag of its own to report: its frames were
        // never due at any time (the processing speed is frames ÷ cpuSeconds).
        let unpaced = input.isReplay && !input.paced
        finalFacts.achievedFramesPerSecond = unpaced ? nil : final.achievedFramesPerSecond.rounded(toDecimals: 2)
        finalFacts.frames = session.frames
        finalFacts.framesWithFace = session.framesWithFace
        finalFacts.droppedFrames = final.droppedFrames
        finalFacts.detectorRuns = pipeline.tracker.detectorRuns
        if !lagsMilliseconds.isEmpty && !unpaced {
            lagsMilliseconds.sort()
            let median = lagsMilliseconds[lagsMilliseconds.count / 2]
            let p95 = lagsMilliseconds[min(lagsMilliseconds.count - 1, lagsMilliseconds.count * 95 / 100)]
            finalFacts.lagMedianMilliseconds = median.rounded(toDecimals: 1)
            finalFacts.lagP95Milliseconds = p95.rounded(toDecimals: 1)
        }
        // CPU of the recording itself (model loading excluded), all threads.
        let cpu = SystemClock.cpuSeconds() - cpuAtBegin
        finalFacts.cpuSeconds = cpu.rounded(toDecimals: 3)
        if final.elapsedSeconds > 0 { finalFacts.cpuPercentOfOneCore = (100 * cpu / final.elapsedSeconds).rounded(toDecimals: 1) }
        finalFacts.savedVideo = video?.video
        var closed = true
        do {
            try session.close(endTimeSeconds: endTime, facts: finalFacts, endedBy: failure.map { "\($0)" })
        } catch {
            failure = failure ?? error
            closed = false
        }
        unlink(RecorderLock.statusPath(databasePath: configuration.databasePath))
        return RecordingResult(sessionID: session.id, frames: session.frames, framesWithFace: session.framesWithFace,
                               blinks: session.blinks, eyes: session.eyeStatistics.summary, gazeSamples: session.gazeSamples, droppedFrames: final.droppedFrames,
                               durationSeconds: endTime - begin, savedVideo: video?.video, videoFailure: video?.failure,
                               failure: failure, closed: closed)
    }
}

/// A recording's frame source once opened: what it is, and how its frames reach the pipeline.
struct OpenedSource {
    let source: FrameSource
    /// The device path or file path.
    let description: String
    /// The V4L2 camera, when recording from one.
    let camera: V4L2Camera?
    let requestedFramesPerSecond: Double
    /// `deviceInfo.model`: the camera's card name or the file's name.
    let deviceModel: String
    /// A file replayed as if it were a camera: frame times count from the session's begin.
    let isReplay: Bool
    /// Whether a replay waits for each frame's presentation time.
    let paced: Bool

    /// Why frames are turned back left to right, if they are.
    let mirrored: RecordingFacts.MirrorReason?

    init(_ recordingSource: RecordingSource, mirror: Bool) throws {
        switch recordingSource {
        case .camera(let configuration):
            let camera = try V4L2Camera(configuration: configuration)
            mirrored = mirror ? .option : camera.flipsHorizontally ? .camera : nil
            source = PrefetchingFrameSource(mirrored == nil ? camera : MirroredFrameSource(camera), policy: .keepNewest, capacity: 2)
            (description, self.camera, requestedFramesPerSecond, deviceModel) =
                (configuration.path, camera, Double(configuration.framesPerSecond), camera.name)
            (isReplay, paced) = (false, false)
        case .file(let path, let asFastAsPossible):
            let video = try VideoFileSource(path: path)
            mirrored = mirror ? .option : nil
            source = mirror ? MirroredFrameSource(video) : video
            (description, camera, requestedFramesPerSecond, deviceModel) = (path, nil, video.framesPerSecond, video.name)
            (isReplay, paced) = (true, !asFastAsPossible)
        case .frames(let frames, let name):
            mirrored = mirror ? .option : nil
            source = mirror ? MirroredFrameSource(frames) : frames
            (description, camera, requestedFramesPerSecond, deviceModel) = (name, nil, frames.framesPerSecond, name)
            (isReplay, paced) = (false, false)
        }
    }

    /// The source the pipeline reads: a camera's own prefetcher, or a file (paced from
    /// `originMonotonic` when replayed at its own pace) read ahead losslessly on its own thread.
    func running(pacedFrom originMonotonic: Double) -> FrameSource {
        if let camera = source as? PrefetchingFrameSource { return camera }
        let timed = paced ? PacedFrameSource(source, originMonotonic: originMonotonic) : source
        return PrefetchingFrameSource(timed, policy: .lossless, capacity: 8)
    }

    /// Frames lost so far: the driver's sequence gaps and the keep-newest queue's drops.
    func droppedFrames(_ running: FrameSource) -> Int {
        (camera?.droppedFrames ?? 0) + ((running as? PrefetchingFrameSource)?.droppedFrames ?? 0)
    }
}
