import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import SessionStore
import StimulusPresenter

/// One recording, from its frame source through the vision pipeline into a session of the store.
///
/// The stages, as `run` calls them: (1) the landmark model, (2) the source (`FrameSourceRequest`)
/// and the `FramePipeline`, (3) the session (`RecordingSession`, with its video and markers),
/// (4) the frames: the face stage on a second thread (detector or tracking, landmarks), eye
/// features, blend shapes, head pose and (when asked for) expressions (`ExpressionStage`) here,
/// samples into a pending batch committed every
/// `flushIntervalSeconds` (≤ 250 ms, so a crash loses at most that much), (5) the close. The
/// session row exists from the first moment, without `endTime`; closing sets `endTime` and the
/// extension data.
public final class RecordingRun {
    /// What `run` tells about each frame: its measurement, blend-shape values (name, value), gaze
    /// sample (with a calibration) and expression probabilities (when asked for, with a face).
    public typealias FrameObserver = (FrameMeasurement, [(String, Double)], GazeSample?, ExpressionSample?) -> Void

    public let configuration: RecordingConfiguration
    public let stop: StopRequest

    public init(configuration: RecordingConfiguration, stop: StopRequest) {
        self.configuration = configuration
        self.stop = stop
    }

    /// Runs the recording until stopped, the duration or the file ends, or the source fails.
    /// `locked` is called once this recording holds the database's recorder lock, `started` with
    /// the session id once the first frame has been processed, `warning` when the face has been
    /// missing for `RecordingSession.noFaceWarningSeconds` (once per such stretch) and the first time
    /// a face is not upright (`FaceUprightness`: its frames are recorded as without a face).
    /// `sample` receives every frame's measurement, blend-shape values, gaze sample (with a
    /// calibration) and expression probabilities (when asked for) as they are produced: the live
    /// stream and preview.
    public func run(locked: () -> Void = {}, started: (String) -> Void = { _ in },
                    progress: (RecorderStatus) -> Void = { _ in }, warning: (String) -> Void = { _ in },
                    sample: FrameObserver? = nil) throws
        -> RecordingResult {
        // A file-size limit must give a write error (reported, committed samples kept), not kill us.
        signal(SIGXFSZ, SIG_IGN)
        let lock = try RecorderLock(databasePath: configuration.databasePath)
        defer { lock.release() }
        locked()
        for text in configuration.warnings { warning(text) }
        let database = try SessionDatabase(path: configuration.databasePath)
        // A recorder that died left its session open: close it now.
        _ = try database.repairInterruptedSessions()

        // 1. Models (1–2 s to load: before the source opens, so no frame waits for them).
        let expressions = try configuration.expressions.map { try ExpressionStage(files: $0) }
        // 2. Source and pipeline. Files start their (paced) reading only when the session begins.
        let vision = try VisionInput(modelPath: configuration.modelPath, source: configuration.source, startNow: false,
                                     focalLengthPixels: configuration.focalLengthPixels,
                                     headPoseModel: configuration.headPoseModel, finding: { _ in configuration.faceFinding })
        defer { vision.stop() }
        let input = vision.opened, pipeline = vision.pipeline
        // The player opens on its grey screen before the session begins: one that cannot start ends
        // the run with nothing recorded, and the display's size is told before recording starts.
        let presenter = try configuration.presentation.map { try launchPresenter($0, warning: warning) }
        defer { if let presenter, presenter.outcome == nil { presenter.stop() } }
        // 3. The session (and, before it, its LSL streams: a client may be awaited).
        let labStreams = try configuration.labStreaming.map { try LabStreams($0, input: input, note: warning) }
        let active = try ActiveRecording(sessionConfiguration(presenter: presenter), input: input, database: database,
                                         labStreams: labStreams)
        try lock.publish(RecorderInfo(pid: getpid(), sessionID: active.session.id, startedAt: active.begin))
        active.startMarkers(database: database)
        // 4. The frames.
        let frames = vision.start(pacedFrom: active.beginMonotonic)
        presenter?.play()
        let tally = FrameTally(begin: active.begin)
        pipeline.checkSeatingOverFirstSecond(configuration.seating) { tally.seating = $0 }
        let failure = record(frames, through: pipeline, into: active, presenter: presenter, tally: tally, expressions: expressions,
                             started: started, progress: progress, warning: warning, sample: sample)
        // 5. Close, and leave the database file complete without its log.
        var result = close(active, pipeline: pipeline, presenter: presenter, tally: tally, failure: failure)
        result.logFolded = database.finishWriting()
        return result
    }

    private struct Stopped: Error {}

    /// Runs every frame through the pipeline into the session, telling the caller as `run` says;
    /// returns the error that ended it early, if any.
    private func record(_ frames: FrameSource, through pipeline: FramePipeline, into active: ActiveRecording,
                        presenter: StimulusPresenter?, tally: FrameTally, expressions: ExpressionStage?, started: (String) -> Void,
                        progress: (RecorderStatus) -> Void, warning: (String) -> Void, sample: FrameObserver?)
        -> (any Error)? {
        let session = active.session
        let saved: FrameSource = active.saver.map { saver in ObservedFrameSource(frames) { saver.stage($0) } } ?? frames
        do {
            try pipeline.processAll(saved) { features, event in
                // Camera frames carry Unix time; replayed files their presentation time from the start.
                let time = active.replayStart.map { $0 + features.timestampSeconds } ?? features.timestampSeconds
                tally.frame(at: time)
                let measurement = features.measurement(timestampSeconds: time)
                let values = blendShapeValues(features, rest: tally.blendShapeRest(features))
                let expression = try expressions?.sample(features, timestampSeconds: time)
                let gaze = try session.record(measurement, blendShapeValues: values, expression: expression,
                                              blink: event.map { $0.shifted(by: active.replayStart ?? 0) })
                active.saver?.commit(index: features.frameIndex)
                active.labStreams?.push(measurement, gaze: gaze)
                sample?(measurement, values.map { ($0.0.rawValue, $0.1) }, gaze, expression)
                if session.frames == 1 { started(session.id) }
                report(active, tally: tally, trackingState: features.trackingState, progress: progress, warning: warning)
                if let seating = tally.takeSeating(), !seating.ok { warning("seating: " + seating.adviceText) }
                if !tally.warnedNotUpright, let text = pipeline.lastNotUpright?.warning(atSeconds: time - active.begin) {
                    tally.warnedNotUpright = true
                    warning(text)
                }
                if stop.isRequested { throw Stopped() }
                if let presenter {
                    for presentation in presenter.takeUpdates() { session.record(presentation: presentation) }
                    if presenter.outcome != nil { throw Stopped() }
                }
                if let limit = configuration.maximumDurationSeconds, SystemClock.monotonic() - tally.startMonotonic >= limit {
                    throw Stopped()
                }
            }
        } catch is Stopped {
        } catch {
            return error
        }
        return nil
    }

    /// Starts the player on its grey screen, with the session's screen as its points, and says when
    /// the display's size differs from that screen.
    ///
    /// A session with neither a calibration nor a screen given takes the display's size as its
    /// screen (`sessionConfiguration`): the presenter keeps display pixels as points (its screen
    /// points nil), so a rectangle is never in a screen the session does not have.
    private func launchPresenter(_ settings: PresenterSettings, warning: (String) -> Void) throws -> StimulusPresenter {
        var settings = settings
        let screen = (width: configuration.screenWidth, height: configuration.screenHeight)
        settings.screenPoints = configuration.screenIsDefault ? nil : screen
        let presenter = try StimulusPresenter.launch(settings, clock: { SystemClock.unixTime() })
        if configuration.screenIsDefault, presenter.displayPixels != nil { return presenter }
        if let display = presenter.displayPixels,
           let text = PresenterChecks.screenMismatch(display: display, screen: screen, calibrated: configuration.calibration != nil) {
            warning(text)
        } else if presenter.displayPixels == nil {
            warning("the display's size could not be read from the player: the stimulus's place is taken as display pixels "
                    + "equal to the session's screen points")
        }
        return presenter
    }

    /// The configuration the session is made with: a default screen (no calibration, no screen
    /// given) replaced by the presenter's display, in pixels as points.
    private func sessionConfiguration(presenter: StimulusPresenter?) -> RecordingConfiguration {
        var session = configuration
        if configuration.screenIsDefault, let display = presenter?.displayPixels {
            session.screenWidth = Double(display.width)
            session.screenHeight = Double(display.height)
        }
        return session
    }

    /// The configured blend shapes' values for a frame with a face (none without one): the gaze
    /// shapes against the learned rest, the expression shapes against the learned neutral face.
    private func blendShapeValues(_ features: FrameFeatures, rest: BlendShapeRest) -> [(BlendShapeName, Double)] {
        guard features.face != nil else { return [] }
        return BlendShapeEstimator.values(configuration.blendShapes, features, rest: rest)
    }

    /// Says when the face went missing (once per stretch) and, twice a second, how the recording goes.
    private func report(_ active: ActiveRecording, tally: FrameTally, trackingState: TrackingState,
                        progress: (RecorderStatus) -> Void, warning: (String) -> Void) {
        let faceWarning = active.session.noFaceWarning
        if let faceWarning, !tally.warned { warning(faceWarning) }
        tally.warned = faceWarning != nil
        let now = SystemClock.monotonic()
        guard now - tally.lastStatus >= 0.5 else { return }
        tally.lastStatus = now
        var current = active.status(.frame(trackingState), startMonotonic: tally.startMonotonic)
        current.warning = current.warning ?? configuration.warnings.first
        current.write(databasePath: configuration.databasePath)
        progress(current)
    }

    /// Ends the session: no more markers, the last samples, then `endTime` and the extension data.
    private func close(_ active: ActiveRecording, pipeline: FramePipeline, presenter: StimulusPresenter?, tally: FrameTally,
                       failure: (any Error)?) -> RecordingResult {
        let session = active.session
        active.finishMarkers()
        // The item on the screen is cut short when the recording ended first; every presentation is stored.
        if let presenter {
            if presenter.outcome == nil { presenter.stop() }
            for presentation in presenter.takeUpdates() { session.record(presentation: presentation) }
        }
        let video = active.saver?.finish()
        if let event = pipeline.finish() { session.record(blink: event.shifted(by: active.replayStart ?? 0)) }
        // The last samples; a store that refuses them (a full disk) ended the recording.
        var failure = failure
        if let refused = session.settle() { failure = failure ?? refused }
        let final = active.status(.ended, startMonotonic: tally.startMonotonic)
        let input = active.input
        // A recording ended by a failure ends with its last stored frame: the frames processed after
        // it (a refused batch, up to seconds of a file read as fast as possible) were not recorded.
        let stored = session.lastStoredFrameTime ?? active.begin
        // Never before the begin: frames stamped earlier (a clock stepped back) must not close a
        // session that ends before it begins, which every reader refuses as damaged.
        let endTime = max(active.begin, failure != nil ? min(stored, tally.lastTimestamp)
            : input.camera == nil ? tally.lastTimestamp : max(tally.lastTimestamp, SystemClock.unixTime()))
        var facts = active.finalFacts(final, lagsMilliseconds: tally.lagsMilliseconds, detectorRuns: pipeline.tracker.detectorRuns)
        // Named as the session names it from the start (relative to the database's folder when under it).
        facts.savedVideo = video.map { finished in
            var named = finished.video
            named.path = active.facts.savedVideo?.path ?? named.path
            return named
        }
        facts.seatingAdvice = tally.seatingAdvice
        var closed = true
        let endedBy = failure == nil ? presenter?.outcome?.endedBy : nil
        do {
            try session.close(endTimeSeconds: endTime, facts: facts, endedBy: failure.map { "\($0)" } ?? endedBy)
        } catch {
            failure = failure ?? error
            closed = false
        }
        unlink(RecorderLock.statusPath(databasePath: configuration.databasePath))
        return RecordingResult(sessionID: session.id, frames: session.frames, framesWithFace: session.framesWithFace,
                               blinks: session.blinks, eyes: session.eyeStatistics.summary, gazeSamples: session.gazeSamples,
                               droppedFrames: final.droppedFrames, durationSeconds: endTime - active.begin,
                               savedVideo: video?.video, videoFailure: video?.failure, failure: failure, closed: closed,
                               endedBy: endedBy)
    }
}

/// What the frame loop keeps between frames: times, lags, the warning said, the face's rest levels.
final class FrameTally {
    let startMonotonic = SystemClock.monotonic()
    var lastStatus = 0.0
    var lastTimestamp: Double
    var lagsMilliseconds: [Double] = []
    var warned = false
    /// Whether the warning about a face that is not upright was given (once per recording).
    var warnedNotUpright = false
    /// The first second's seating report, until the frame loop takes it.
    var seating: SeatingReport?
    /// Its advice when it was out of range, for the recorder's facts.
    private(set) var seatingAdvice: String?
    private var rest = BlendShapeRest()

    /// The first second's seating report, once, when it has come.
    func takeSeating() -> SeatingReport? {
        guard let report = seating else { return nil }
        seating = nil
        if !report.ok { seatingAdvice = report.adviceText }
        return report
    }

    init(begin: Double) {
        lastTimestamp = begin
    }

    /// A frame due (or captured) at `time`, Unix seconds: its lag runs until now.
    func frame(at time: Double) {
        lastTimestamp = time
        lagsMilliseconds.append((SystemClock.unixTime() - time) * 1000)
    }

    /// The face's rest levels and neutral face with this frame observed.
    func blendShapeRest(_ features: FrameFeatures) -> BlendShapeRest {
        rest.observe(features)
        return rest
    }
}
