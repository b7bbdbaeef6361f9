import GazeAnalysis
import GazeCalibration
import GazeCore
import GazeModel
import SessionStore

/// One session being recorded: its row, its frames in batched commits, its extension, its close.
///
/// WHAT THIS OBJECT REPRESENTS
///   The storage side of a recording, fed one `FrameMeasurement` at a time by whatever produced
///   it (the camera pipeline in `Recorder`, constructed measurements in tests). Each frame's
///   gaze comes from the applied calibration through a `GazeStream`, the same code
///   `recalibrate` uses. Samples wait in a pending batch committed in one transaction when
///   `flushIntervalSeconds` have passed on `clock` since the last commit, and after the first
///   frame (so a reader sees the session at once); a crash loses at most one interval.
/// THREAD SAFETY
///   None: one thread records.
public final class RecordingSession {
    public let id: String
    public let beginTimeSeconds: Double
    public let orientation: Int
    public let blendShapes: [BlendShapeName]
    public let flushIntervalSeconds: Double
    /// The extension stored with the session; `close` completes it.
    public private(set) var gazerecExtension: SessionExtension
    public private(set) var frames = 0
    public private(set) var framesWithFace = 0
    public private(set) var blinks = 0
    /// Blinks, long closures, blink rate and PERCLOS so far.
    public private(set) var eyeStatistics = EyeStatistics()
    public private(set) var gazeSamples = 0
    /// Frames recorded with expression probabilities.
    public private(set) var expressionSamples = 0
    /// Seconds (frame time) without a face after which the recording warns, while it runs: soon
    /// enough for a researcher to move the participant or the camera.
    public static let noFaceWarningSeconds = 1.0
    /// Seconds without a face at a stretch after which the finished session is marked with a
    /// warning (a blink or a quick look away is not worth marking).
    public static let missingFaceMarkSeconds = 5.0
    /// The longest stretch of frame time without a face so far, in seconds.
    public private(set) var longestWithoutFaceSeconds = 0.0
    private var firstFrameTime: Double?
    private var lastFaceTime: Double?
    private var lastFrameTime: Double?
    /// Commits made so far.
    public private(set) var commits = 0
    /// The time of the last frame stored (committed), on the frames' scale; nil before the first commit.
    public private(set) var lastStoredFrameTime: Double?

    private let writer: SessionWriter
    private let clock: () -> Double
    private var gazeStream: GazeStream?
    private var pending = SampleBatchToAppend()
    private var lastCommit: Double?

    /// Creates the session row (without an end time) and its blend-shape series.
    ///
    /// `clock` gives seconds on any monotonic scale; it times the commits.
    public init(database: SessionDatabase, id: String, appID: String, beginTimeSeconds: Double, device: DeviceInfo,
                facts: RecordingFacts, calibration: AppliedCalibration?, smoothing: GazeSmoothing, orientation: Int,
                blendShapes: [BlendShapeName], recorderPID: Int32, flushIntervalSeconds: Double = 0.25,
                clock: @escaping () -> Double) throws {
        self.id = id
        self.beginTimeSeconds = beginTimeSeconds
        self.orientation = orientation
        self.blendShapes = blendShapes
        self.flushIntervalSeconds = flushIntervalSeconds
        self.clock = clock
        gazeStream = calibration.map { GazeStream($0, smoothing: smoothing, orientation: orientation) }
        var initial = SessionExtension()
        initial.formatVersion = SessionExtension.currentFormatVersion
        initial.recorder = facts
        initial.applyCalibration(calibration?.reference, smoothing: smoothing)
        gazerecExtension = initial
        writer = try SessionWriter(
            database: database,
            header: SessionHeader(id: id, appID: appID, beginTimeSeconds: beginTimeSeconds, endTimeSeconds: nil,
                                  deviceInfo: device, gazerecExtension: initial),
            blendShapeNames: blendShapes.map(\.rawValue), recorderPID: recorderPID)
    }

    /// Records one frame: its measurement, its blend-shape values, its expression probabilities
    /// (a recording asked for them, a frame with a face), the blink it completed, if any.
    /// Returns its scan-path sample (nil without a calibration or without gaze in the frame).
    @discardableResult
    public func record(_ frame: FrameMeasurement, blendShapeValues: [(BlendShapeName, Double)] = [],
                       expression: ExpressionSample? = nil, blink: BlinkEvent? = nil) throws -> GazeSample? {
        frames += 1
        eyeStatistics.add(frame)
        let time = frame.timestampSeconds
        if firstFrameTime == nil { firstFrameTime = time }
        lastFrameTime = time
        if frame.hasFace {
            framesWithFace += 1
            lastFaceTime = time
        }
        longestWithoutFaceSeconds = max(longestWithoutFaceSeconds, secondsWithoutFace)
        pending.frames.append(frame)
        let gaze = gazeStream?.sample(for: frame)
        if let gaze {
            pending.gaze.append(gaze)
            gazeSamples += 1
        }
        let state = frame.trackingState
        for (name, value) in blendShapeValues {
            pending.blendShapes[name.rawValue, default: []].append(
                BlendShapeSample(timestampSeconds: frame.timestampSeconds, value: value, orientation: orientation,
                                 trackingState: state))
        }
        if let expression {
            pending.expressions.append(expression)
            expressionSamples += 1
        }
        if let blink { record(blink: blink) }
        let now = clock()
        if lastCommit.map({ now - $0 >= flushIntervalSeconds }) ?? true {
            try commit()
            lastCommit = now
        }
        return gaze
    }

    /// Frame time since the last frame with a face (or since the first frame, when none had one).
    public var secondsWithoutFace: Double {
        guard let lastFrameTime, let since = lastFaceTime ?? firstFrameTime else { return 0 }
        return max(0, lastFrameTime - since)
    }

    /// A warning while the face has been missing for `noFaceWarningSeconds` or longer, else nil.
    public var noFaceWarning: String? {
        let missing = secondsWithoutFace
        guard missing >= Self.noFaceWarningSeconds else { return nil }
        let span = Int(missing.rounded(.down))
        return framesWithFace == 0
            ? "no face found in \(span) s of frames: check the camera's view, light and distance"
            : "no face for the last \(span) s: the participant is out of view"
    }

    /// What a finished session's data should be read with: no face at all, or long gaps.
    var closingWarnings: [String] {
        if frames > 0 && framesWithFace == 0 { return ["no face was found in any of the \(frames) frames"] }
        guard longestWithoutFaceSeconds >= Self.missingFaceMarkSeconds else { return [] }
        let percent = (100 * Double(frames - framesWithFace) / Double(max(frames, 1))).rounded(toDecimals: 1)
        return ["the face was missing for up to \(longestWithoutFaceSeconds.rounded(toDecimals: 1)) s at a stretch "
                + "(\(percent) % of frames without a face)"]
    }

    /// Records a blink event (one that ended with the stream, say) with the next commit.
    /// A presentation as it now stands (`StimulusPresenter.takeUpdates`), stored with the next
    /// batch; a later snapshot of the same presentation in the same batch replaces this one.
    public func record(presentation: Presentation) {
        pending.presentations.removeAll { $0.index == presentation.index }
        pending.presentations.append(presentation)
    }

    public func record(blink: BlinkEvent) {
        pending.blinks.append(blink)
        if blink.kind == .blink { blinks += 1 }
        eyeStatistics.add(blink)
    }

    /// Commits what is pending now.
    public func commit() throws {
        guard !pending.isEmpty else { return }
        try writer.append(pending)
        if let last = pending.frames.last { lastStoredFrameTime = last.timestampSeconds }
        pending = SampleBatchToAppend()
        commits += 1
    }

    /// Commits what is pending; when the store refuses it (a full disk), leaves it out and counts
    /// only what was stored, so the close that follows (smaller than a batch of samples, and written
    /// where the refused batch was) can still record the session's end and why. Returns the error.
    public func settle() -> (any Error)? {
        do {
            try commit()
            return nil
        } catch {
            frames -= pending.frames.count
            framesWithFace -= pending.frames.filter(\.hasFace).count
            gazeSamples -= pending.gaze.count
            expressionSamples -= pending.expressions.count
            blinks -= pending.blinks.filter { $0.kind == .blink }.count
            pending = SampleBatchToAppend()
            return error
        }
    }

    /// Ends the session: the pending samples, then the end time and the completed extension, each in
    /// its own transaction. `facts` replaces the recorder's facts; `endedBy` names an error that
    /// ended the recording early.
    public func close(endTimeSeconds: Double, facts: RecordingFacts, endedBy: String?) throws {
        try commit()
        gazerecExtension.recorder = facts
        gazerecExtension.endedBy = endedBy
        gazerecExtension.eyes = eyeStatistics.summary
        let warnings = closingWarnings
        gazerecExtension.warnings = warnings.isEmpty ? nil : warnings
        try writer.close(endTimeSeconds: endTimeSeconds, gazerecExtension: gazerecExtension)
    }
}
