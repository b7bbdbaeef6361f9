import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
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

/// How a recording ended.
public struct RecordingResult: Sendable {
    public var sessionID: String
    public var frames: Int
    public var framesWithFace: Int
    public var blinks: Int
    /// Scan-path samples recorded (0 without a calibration).
    public var gazeSamples: Int
    public var droppedFrames: Int
    public var durationSeconds: Double
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
    /// `started` is called with the session id once the first frame has been processed.
    /// `sample` receives every frame's record, blend-shape values and gaze sample (with a
    /// calibration) as they are produced: the live stream and preview.
    public func run(started: (String) -> Void = { _ in }, progress: (RecorderStatus) -> Void = { _ in },
                    sample: ((FrameRecord, [(String, Double)], GazeSample?) -> Void)? = nil) throws
        -> RecordingResult {
        // A file-size limit must give a write error (reported, committed samples kept), not kill us.
        signal(SIGXFSZ, SIG_IGN)
        let lock = try RecorderLock(databasePath: configuration.databasePath)
        defer { lock.release() }
        let database = try SessionDatabase(path: configuration.databasePath)
        // A recorder that died left its session open: close it now.
        _ = try database.repairInterruptedSessions()

        // 1. Model (1–2 s to load: before the source starts, so no frame waits for it).
        let model = try LandmarkModel.shared(path: configuration.modelPath)

        // 2. Source and pipeline. Files start their (paced) reading only when the session begins.
        let (source, sourceDescription, cameraFor, requestedFPS, deviceModel): (FrameSource, String, V4L2Camera?, Double, String)
        var replay: (paced: Bool, start: Double)?
        switch configuration.source {
        case .camera(let cameraConfiguration):
            let camera = try V4L2Camera(configuration: cameraConfiguration)
            source = PrefetchingFrameSource(camera, policy: .keepNewest, capacity: 2)
            (sourceDescription, cameraFor, requestedFPS, deviceModel) =
                (cameraConfiguration.path, camera, Double(cameraConfiguration.framesPerSecond), camera.name)
        case .file(let path, let asFastAsPossible):
            let video = try VideoFileSource(path: path)
            source = video
            (sourceDescription, cameraFor, requestedFPS, deviceModel) = (path, nil, video.framesPerSecond, video.name)
            replay = (!asFastAsPossible, 0)
        case .frames(let frames, let name):
            source = frames
            (sourceDescription, cameraFor, requestedFPS, deviceModel) = (name, nil, frames.framesPerSecond, name)
        }
        let pipeline = try FramePipeline(model: model, width: source.width, height: source.height,
                                         focalLengthPixels: configuration.focalLengthPixels)

        // 3. The session. Replayed frames are due at begin + their presentation time.
        let begin = SystemClock.unixTime()
        let beginMonotonic = SystemClock.monotonic()
        let cpuAtBegin = SystemClock.cpuSeconds()
        if replay != nil { replay!.start = begin }
        let replayStart = replay?.start
        let sessionID = UUID().uuidString
        let recorderInfo: [(String, JSONValue)] = [
            ("version", .string(RecorderVersion.current)),
            ("source", .string(cameraFor == nil ? "file" : "camera")),
            (cameraFor == nil ? "input" : "camera", .string(sourceDescription)),
            ("resolution", .array([.number(Double(source.width)), .number(Double(source.height))])),
            ("requestedFramesPerSecond", .number(requestedFPS)),
            ("model", .string(configuration.modelPath)),
        ]
        let header = SessionHeader(
            id: sessionID, appID: configuration.appID, beginTimeSeconds: begin, endTimeSeconds: nil,
            deviceInfo: DeviceInfo(model: deviceModel, screenWidth: configuration.screenWidth,
                                   screenHeight: configuration.screenHeight, systemName: "Linux",
                                   systemVersion: SystemClock.systemVersion()),
            extensionJSON: Self.extensionText([("formatVersion", .number(1)), ("recorder", .object(recorderInfo))]
                                              + calibrationMembers))
        let writer = try SessionWriter(database: database, header: header,
                                       blendShapeNames: configuration.blendShapes.map(\.rawValue),
                                       recorderPID: getpid())
        try lock.publish(RecorderInfo(pid: getpid(), sessionID: sessionID, startedAt: begin))
        let running: FrameSource
        if let camera = source as? PrefetchingFrameSource {
            running = camera
        } else {
            let paced = replay?.paced == true ? PacedFrameSource(source, originMonotonic: beginMonotonic) : source
            running = PrefetchingFrameSource(paced, policy: .lossless, capacity: 8)
        }
        defer { (running as? PrefetchingFrameSource)?.stop() }

        // 4. The loop.
        var pending = SampleBatchToAppend()
        var lastFlush = SystemClock.monotonic()
        var lastStatus = 0.0
        var frames = 0, withFace = 0, blinks = 0, gazeSamples = 0
        var lastTimestamp = begin
        var lagsMilliseconds: [Double] = []
        var announced = false
        var failure: (any Error)?
        let startMonotonic = SystemClock.monotonic()
        let orientation = configuration.orientation
        var gazeStream = configuration.calibration.map {
            GazeStream($0, smoothing: configuration.smoothing, orientation: orientation)
        }

        func status(_ state: String) -> RecorderStatus {
            let elapsed = SystemClock.monotonic() - startMonotonic
            let dropped = (cameraFor?.droppedFrames ?? 0) + ((running as? PrefetchingFrameSource)?.droppedFrames ?? 0)
            return RecorderStatus(pid: getpid(), sessionID: sessionID, source: sourceDescription, elapsedSeconds: elapsed,
                                  frames: frames, framesWithFace: withFace,
                                  achievedFramesPerSecond: elapsed > 0 ? Double(frames) / elapsed : 0,
                                  droppedFrames: dropped, blinks: blinks, trackingState: state,
                                  updatedAt: SystemClock.unixTime())
        }

        do {
            try pipeline.processAll(running) { features, event in
                // Camera frames carry Unix time; replayed files their presentation time from the start.
                let time = replayStart.map { $0 + features.timestampSeconds } ?? features.timestampSeconds
                lastTimestamp = time
                // Lag: from the frame's capture (or due) time to its features being ready.
                lagsMilliseconds.append((SystemClock.unixTime() - time) * 1000)
                frames += 1
                if features.face != nil { withFace += 1 }
                let record = Self.frameRecord(features, time: time)
                pending.frames.append(record)
                let gaze = gazeStream?.sample(for: record)
                if let gaze {
                    pending.gaze.append(gaze)
                    gazeSamples += 1
                }
                var values: [(String, Double)] = []
                if features.face != nil {
                    let state = features.trackingState.sessionValue
                    for name in configuration.blendShapes {
                        guard let value = BlendShapeEstimator.value(name, features) else { continue }
                        values.append((name.rawValue, value))
                        pending.blendShapes[name.rawValue, default: []].append(
                            BlendShapeSample(timestampSeconds: time, value: value, orientation: orientation, trackingState: state))
                    }
                }
                sample?(record, values, gaze)
                if let event {
                    if event.kind == .blink { blinks += 1 }
                    pending.blinks.append(Self.blinkRecord(event, offset: replayStart))
                }
                let now = SystemClock.monotonic()
                if now - lastFlush >= configuration.flushIntervalSeconds || !announced {
                    try writer.append(pending)
                    pending = SampleBatchToAppend()
                    lastFlush = now
                }
                if !announced {
                    announced = true
                    started(sessionID)
                }
                if now - lastStatus >= 0.5 {
                    lastStatus = now
                    let current = status(features.trackingState.analysisValue)
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

        // 5. Close: the last samples, then endTime and the extension data.
        if let event = pipeline.finish() {
            pending.blinks.append(Self.blinkRecord(event, offset: replayStart))
            if event.kind == .blink { blinks += 1 }
        }
        do {
            try writer.append(pending)
        } catch {
            failure = failure ?? error
        }
        let final = status("ended")
        let endTime = cameraFor == nil ? lastTimestamp : max(lastTimestamp, SystemClock.unixTime())
        var recorder = recorderInfo
        recorder.append(("grantedFramesPerSecond", .number(cameraFor?.framesPerSecond ?? requestedFPS)))
        recorder.append(("achievedFramesPerSecond", .number((final.achievedFramesPerSecond * 100).rounded() / 100)))
        recorder.append(("frames", .number(Double(frames))))
        recorder.append(("framesWithFace", .number(Double(withFace))))
        recorder.append(("droppedFrames", .number(Double(final.droppedFrames))))
        recorder.append(("detectorRuns", .number(Double(pipeline.tracker.detectorRuns))))
        if !lagsMilliseconds.isEmpty {
            lagsMilliseconds.sort()
            let median = lagsMilliseconds[lagsMilliseconds.count / 2]
            let p95 = lagsMilliseconds[min(lagsMilliseconds.count - 1, lagsMilliseconds.count * 95 / 100)]
            recorder.append(("lagMedianMilliseconds", .number((median * 10).rounded() / 10)))
            recorder.append(("lagP95Milliseconds", .number((p95 * 10).rounded() / 10)))
        }
        // CPU of the recording itself (model loading excluded), all threads.
        recorder.append(("cpuSeconds", .number(((SystemClock.cpuSeconds() - cpuAtBegin) * 1000).rounded() / 1000)))
        var extensionMembers: [(String, JSONValue)] = [("formatVersion", .number(1)), ("recorder", .object(recorder))]
            + calibrationMembers
        if let failure { extensionMembers.append(("endedBy", .string("\(failure)"))) }
        var closed = true
        do {
            try writer.close(endTimeSeconds: endTime, extensionJSON: Self.extensionText(extensionMembers))
        } catch {
            failure = failure ?? error
            closed = false
        }
        unlink(RecorderLock.statusPath(databasePath: configuration.databasePath))
        return RecordingResult(sessionID: sessionID, frames: frames, framesWithFace: withFace, blinks: blinks,
                               gazeSamples: gazeSamples, droppedFrames: final.droppedFrames, durationSeconds: endTime - begin, failure: failure,
                               closed: closed)
    }

    /// What the extension says about the calibration: whether one mapped the scanPath, and which.
    var calibrationMembers: [(String, JSONValue)] {
        guard let calibration = configuration.calibration else { return [("calibrationApplied", .bool(false))] }
        return [("calibrationApplied", .bool(true)), ("calibration", calibration.reference),
                ("smoothing", configuration.smoothing.jsonValue)]
    }

    static func frameRecord(_ features: FrameFeatures, time: Double) -> FrameRecord {
        var record = FrameRecord(timestampSeconds: time, trackingState: features.trackingState.analysisValue,
                                 confidence: features.confidence)
        record.opennessLeft = features.openness[.left]
        record.opennessRight = features.openness[.right]
        record.pupilLeftU = features.pupils[.left]?.normalized.x
        record.pupilLeftV = features.pupils[.left]?.normalized.y
        record.pupilRightU = features.pupils[.right]?.normalized.x
        record.pupilRightV = features.pupils[.right]?.normalized.y
        if let pose = features.headPose {
            record.yawDegrees = pose.yawDegrees
            record.pitchDegrees = pose.pitchDegrees
            record.rollDegrees = pose.rollDegrees
            record.tx = pose.translation.x
            record.ty = pose.translation.y
            record.tz = pose.translation.z
        }
        return record
    }

    static func blinkRecord(_ event: BlinkEvent, offset: Double?) -> BlinkRecord {
        BlinkRecord(startSeconds: event.startSeconds + (offset ?? 0), endSeconds: event.endSeconds + (offset ?? 0),
                    eyes: event.eyes.rawValue, kind: event.kind.rawValue, minimumOpenness: event.minimumOpenness)
    }

    static func extensionText(_ members: [(String, JSONValue)]) -> String {
        let sink = MemoryByteSink()
        let writer = JSONWriter(sink: sink)
        try? writer.value(.object(members))
        try? writer.flush()
        return sink.text
    }
}

/// Replays a file at its own pace: each frame is released when its presentation time has come.
public final class PacedFrameSource: FrameSource {
    private let source: FrameSource
    private let start: Double
    public var name: String { source.name }
    public var width: Int { source.width }
    public var height: Int { source.height }
    public var framesPerSecond: Double { source.framesPerSecond }

    /// Frame times count from `originMonotonic` (CLOCK_MONOTONIC seconds).
    public init(_ source: FrameSource, originMonotonic: Double) {
        self.source = source
        start = originMonotonic
    }

    public func nextFrame() throws -> Frame? {
        guard let frame = try source.nextFrame() else { return nil }
        let wait = start + frame.timestampSeconds - SystemClock.monotonic()
        if wait > 0 { usleep(useconds_t(wait * 1e6)) }
        return frame
    }
}

/// Clocks and system facts for recordings.
public enum SystemClock {
    public static func unixTime() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    public static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// User + system CPU time of this process so far, all threads.
    public static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// "Debian GNU/Linux 12 (bookworm); kernel 6.1.0-…".
    public static func systemVersion() -> String {
        var distribution = "Linux"
        if let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8),
           let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PRETTY_NAME=") }) {
            distribution = line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        var names = utsname()
        uname(&names)
        let release = withUnsafeBytes(of: names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(distribution); kernel \(release)"
    }
}

/// gazerec's version, recorded with every session.
public enum RecorderVersion {
    public static let current = "0.1.0"
}
