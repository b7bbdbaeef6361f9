import Foundation
import GazeCapture
import GazeModel
import SessionExport
import SessionStore

/// A recording's session once begun: the session, its video and markers, and when it began.
final class ActiveRecording {
    let input: OpenedFrameSource
    let session: RecordingSession
    let saver: VideoSaver?
    let markerFeed: MarkerFeed?
    /// The recording's LSL streams, if it has any (made before the session, begun with it).
    let labStreams: LabStreams?
    /// The facts known at the start (source, model, camera controls).
    let facts: RecordingFacts
    /// Unix seconds and CLOCK_MONOTONIC seconds at the begin, and the process's CPU seconds then.
    let begin: Double, beginMonotonic: Double, cpuAtBegin: Double
    /// A replayed file's frames are due at begin + their presentation time; nil for Unix-stamped frames.
    let replayStart: Double?

    /// Begins the session in `database`, with its video saver, marker feed and LSL streams (not yet started).
    init(_ configuration: RecordingConfiguration, input: OpenedFrameSource, database: SessionDatabase,
         labStreams: LabStreams? = nil) throws {
        self.input = input
        self.labStreams = labStreams
        begin = SystemClock.unixTime()
        beginMonotonic = SystemClock.monotonic()
        cpuAtBegin = SystemClock.cpuSeconds()
        replayStart = input.isReplay ? begin : nil
        var facts = RecordingFacts(
            version: GazerecVersion.current, sourceKind: input.kind, sourceName: input.path,
            width: input.source.width, height: input.source.height,
            requestedFramesPerSecond: input.requestedFramesPerSecond, modelPath: configuration.modelPath)
        facts.headPoseModel = configuration.headPoseModel
        facts.blinkRule = configuration.blinkRule
        facts.uprightRule = configuration.uprightRule
        facts.focalLengthPixels = configuration.focalLengthPixels
        facts.mirrored = input.mirrored
        if let camera = input.camera, !camera.appliedControls.isEmpty {
            facts.cameraControls = camera.appliedControls.map { .init(name: $0.name, value: $0.value) }
        }
        let sessionID = UUID().uuidString
        saver = try configuration.videoDestination.map { try Self.saver($0, sessionID: sessionID, input: input) }
        // The video is named from the first moment, so a deletion finds it however the recording
        // ends (its counts are filled in by the close; a recorder that dies leaves them 0).
        facts.savedVideo = saver.map {
            RecordingFacts.SavedVideo(path: database.storedVideoPath($0.path), frames: 0, droppedFrames: 0)
        }
        self.facts = facts
        session = try RecordingSession(
            database: database, id: sessionID, appID: configuration.appID, beginTimeSeconds: begin,
            device: DeviceInfo(model: input.deviceModel, screenWidth: configuration.screenWidth,
                               screenHeight: configuration.screenHeight, systemName: "Linux",
                               systemVersion: SystemClock.systemVersion()),
            facts: facts, calibration: configuration.calibration, smoothing: configuration.smoothing,
            orientation: configuration.orientation, blendShapes: configuration.blendShapes, recorderPID: getpid(),
            flushIntervalSeconds: configuration.flushIntervalSeconds, clock: SystemClock.monotonic)
        markerFeed = configuration.markerInput.map {
            MarkerFeed(input: $0, database: database, sessionID: sessionID, warning: configuration.markerWarning)
        }
    }

    /// Starts reading markers (the feed, the LSL inlet) and relaying them to LSL.
    func startMarkers(database: SessionDatabase) {
        markerFeed?.start()
        labStreams?.begin(database: database, sessionID: session.id, beginSeconds: begin)
    }

    /// Stops reading markers, and relays the last ones to LSL.
    func finishMarkers() {
        markerFeed?.finish()
        labStreams?.finish()
    }

    /// The saver writing the analysed frames to `destination` (a folder gets `<session id>.mkv`).
    private static func saver(_ destination: VideoDestination, sessionID: String, input: OpenedFrameSource) throws
        -> VideoSaver {
        let path: String
        switch destination {
        case .file(let file): path = file
        case .folder(let folder):
            try OutputFile.createFolder(folder)
            path = (folder as NSString).appendingPathComponent(sessionID + ".mkv")
        }
        return try VideoSaver(path: path, width: input.source.width, height: input.source.height,
                              title: RecordingFacts.SavedVideo.title(sessionID: sessionID), lossless: input.camera == nil)
    }

    /// The figures other processes read, as of now.
    func status(_ state: RecorderStatus.State, startMonotonic: Double) -> RecorderStatus {
        let elapsed = SystemClock.monotonic() - startMonotonic
        return RecorderStatus(pid: getpid(), sessionID: session.id, source: input.path, elapsedSeconds: elapsed,
                              frames: session.frames, framesWithFace: session.framesWithFace,
                              achievedFramesPerSecond: elapsed > 0 ? Double(session.frames) / elapsed : 0,
                              droppedFrames: input.droppedFrames, blinks: session.blinks, trackingState: state,
                              updatedAt: SystemClock.unixTime(), warning: session.noFaceWarning,
                              cpuPercentOfOneCore: elapsed > 0 ? 100 * (SystemClock.cpuSeconds() - cpuAtBegin) / elapsed : nil)
    }

    /// The facts stored when the session closes: rates, counts, lags and CPU beside those of the start.
    func finalFacts(_ final: RecorderStatus, lagsMilliseconds: [Double], detectorRuns: Int) -> RecordingFacts {
        var facts = facts
        facts.grantedFramesPerSecond = input.camera?.framesPerSecond ?? input.requestedFramesPerSecond
        // A file read as fast as possible has no rate or lag of its own to report: its frames were
        // never due at any time (the processing speed is frames ÷ cpuSeconds).
        let unpaced = input.isReplay && !input.paced
        facts.achievedFramesPerSecond = unpaced ? nil : final.achievedFramesPerSecond.rounded(toDecimals: 2)
        facts.frames = session.frames
        facts.framesWithFace = session.framesWithFace
        facts.droppedFrames = final.droppedFrames
        facts.detectorRuns = detectorRuns
        if !lagsMilliseconds.isEmpty && !unpaced {
            let lags = lagsMilliseconds.sorted()
            facts.lagMedianMilliseconds = lags[lags.count / 2].rounded(toDecimals: 1)
            facts.lagP95Milliseconds = lags[min(lags.count - 1, lags.count * 95 / 100)].rounded(toDecimals: 1)
        }
        // CPU of the recording itself (model loading excluded), all threads.
        let cpu = SystemClock.cpuSeconds() - cpuAtBegin
        facts.cpuSeconds = cpu.rounded(toDecimals: 3)
        if final.elapsedSeconds > 0 { facts.cpuPercentOfOneCore = (100 * cpu / final.elapsedSeconds).rounded(toDecimals: 1) }
        return facts
    }
}
