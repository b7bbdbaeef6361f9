import FaceExpression
import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import JSONStream
import SessionStore

/// Runs today's pipeline over a session's saved video and replaces the session's per-frame data
/// with what it gives (`gazerec reanalyze`).
///
/// The video's frames are the recording's frames as they were analysed, one per stored frame:
/// frame i is stamped with stored frame i's time, and the very recorder that records a camera
/// processes them into a scratch database (so a re-analysis is a recording of the same frames, by
/// construction); the session's frames, scan path, blend shapes and blink events (and expression
/// probabilities, when asked for) are then replaced from it in one transaction. Markers and the
/// session's other data stay. A camera's video that lacks frames the writer left out (its
/// `droppedFrames`) is paired with the stored frames by time, and only the frames it holds are
/// analysed: the session then has those frames and no others.
public enum Reanalysis {
    public struct Request: Sendable {
        public var sessionID: String
        public var videoPath: String
        public var modelPath: String
        /// The calibration mapping gaze (nil: the session gets no scan path).
        public var calibration: AppliedCalibration?
        public var smoothing: GazeSmoothing
        public var focalLengthPixels: Double?
        public var faceFinding: FaceFinding
        /// Where ONNX Runtime and the expression model are, to replace the session's expression
        /// probabilities too; nil keeps the stored ones (if any) as they are.
        public var expressions: ExpressionModelFiles?

        public init(sessionID: String, videoPath: String, modelPath: String, calibration: AppliedCalibration?,
                    smoothing: GazeSmoothing, focalLengthPixels: Double?, faceFinding: FaceFinding) {
            self.sessionID = sessionID
            self.videoPath = videoPath
            self.modelPath = modelPath
            self.calibration = calibration
            self.smoothing = smoothing
            self.focalLengthPixels = focalLengthPixels
            self.faceFinding = faceFinding
        }
    }

    /// The session's own calibration (which mapped its gaze) is no longer stored, or cannot be
    /// read: `error` says why. Another calibration (or none) must be asked for.
    public struct OwnCalibrationUnavailable: Error {
        public var sessionID: String
        public var error: StoreError
    }

    /// The re-analysis `gazerec reanalyze` runs on a stored session: its saved video (unless
    /// `videoPath` names another), the calibration named by `calibration` (an id; `none` for none)
    /// else the session's own, the session's smoothing, and the focal length `FocalLength` chooses
    /// (given, else the one the session was recorded with, else the calibration's). Throws
    /// `ReanalysisError.noVideo` when there is no video, and `OwnCalibrationUnavailable` when the
    /// session's own calibration is gone.
    public static func request(sessionID: String, database: SessionDatabase, videoPath: String? = nil,
                               calibration: String? = nil, modelPath: String, focalLengthPixels: Double? = nil,
                               faceFinding: FaceFinding = FaceFinding()) throws -> Request {
        let header = try database.summary(id: sessionID).header
        let recorded = header.gazerecExtension
        guard let path = videoPath ?? recorded?.recorder?.savedVideo.map({ database.resolvedVideoPath($0.path) }) else {
            throw ReanalysisError.noVideo(sessionID: header.id)
        }
        let own = recorded?.calibrationApplied == true ? recorded?.calibration?.id : nil
        var applied: AppliedCalibration?
        if let requested = calibration ?? own, requested != "none" {
            do {
                applied = AppliedCalibration(try database.calibrationRecord(id: requested))
            } catch let error as StoreError where calibration == nil {
                throw OwnCalibrationUnavailable(sessionID: header.id, error: error)
            }
        }
        return Request(sessionID: header.id, videoPath: path, modelPath: modelPath, calibration: applied,
                       smoothing: recorded?.smoothing ?? .none,
                       focalLengthPixels: FocalLength.pixels(given: focalLengthPixels, recorded: recorded?.recorder?.focalLengthPixels,
                                                             calibration: applied?.focalLengthPixels),
                       faceFinding: faceFinding)
    }

    /// What a re-analysis replaced.
    public struct Result: Sendable {
        public var frames: Int
        public var framesWithFace: Int
        public var gazeSamples: Int
        public var eyes: EyeSummary?
        /// Stored frames the saved video lacked (left out while recording), now no longer in the session.
        public var framesNotInVideo: Int
    }

    public static func run(_ request: Request, database: SessionDatabase) throws -> Result {
        let summary = try database.summary(id: request.sessionID)
        let header = summary.header
        guard header.endTimeSeconds != nil else { throw ReanalysisError.stillRecording(sessionID: header.id) }
        let timestamps = try database.frameTimestamps(id: header.id)
        guard !timestamps.isEmpty else { throw ReanalysisError.noFrames(sessionID: header.id) }
        // Frames the writer left out are missing from the video (none once a re-analysis kept only the others).
        let saved = header.gazerecExtension?.recorder?.savedVideo
        let missing = (saved?.droppedFrames ?? 0) > 0 ? max(0, timestamps.count - (saved?.frames ?? timestamps.count)) : 0
        let video = try FrameSourceRequest(.savedVideo(path: request.videoPath, timestamps: timestamps, missingFrames: missing)).open()

        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let scratchPath = scratch.databasePath
        let blendShapes = summary.blendShapeSampleCounts.compactMap { BlendShapeName(rawValue: $0.name) }
        let orientation = try database.sampleOrientation(id: header.id)
        var configuration = RecordingConfiguration(
            source: .frames(video.source, name: request.videoPath), databasePath: scratchPath, modelPath: request.modelPath,
            appID: header.appID, blendShapes: blendShapes, screenWidth: header.deviceInfo.screenWidth,
            screenHeight: header.deviceInfo.screenHeight, orientation: orientation, maximumDurationSeconds: nil,
            focalLengthPixels: request.focalLengthPixels)
        configuration.calibration = request.calibration
        configuration.smoothing = request.smoothing
        configuration.faceFinding = request.faceFinding
        configuration.expressions = request.expressions
        let result = try RecordingRun(configuration: configuration, stop: StopRequest()).run()
        if let failure = result.failure { throw failure }
        if let mismatch = video.restamped?.mismatch {
            throw ReanalysisError.frameCount(path: request.videoPath, video: mismatch.videoFrames,
                                             stored: mismatch.timestamps + missing, missing: missing)
        }

        let redone = try SessionDatabase(path: scratchPath).summary(id: result.sessionID).header.gazerecExtension
        var gazerecExtension = header.gazerecExtension ?? SessionExtension()
        gazerecExtension.eyes = redone?.eyes
        gazerecExtension.warnings = redone?.warnings
        // The poses are measured again, with the applied calibration's face model or this version's.
        gazerecExtension.recorder?.headPoseModel = redone?.recorder?.headPoseModel
        // So are the blinks, with this version's rule.
        gazerecExtension.recorder?.blinkRule = redone?.recorder?.blinkRule
        // And the faces are judged upright by this version's rule.
        gazerecExtension.recorder?.uprightRule = redone?.recorder?.uprightRule
        gazerecExtension.applyCalibration(request.calibration?.reference, smoothing: request.smoothing)
        var facts = ReanalysisFacts(atSeconds: SystemClock.unixTime().rounded(toDecimals: 3), version: GazerecVersion.current,
                                    videoPath: request.videoPath)
        if let recorder = redone?.recorder {
            facts.framesWithFace = recorder.framesWithFace ?? 0
            facts.detectorRuns = recorder.detectorRuns ?? 0
        }
        gazerecExtension.reanalysis = facts
        try database.replaceRecordedData(id: header.id, from: scratchPath, sourceID: result.sessionID,
                                         gazerecExtension: gazerecExtension, expressions: request.expressions != nil)
        return Result(frames: result.frames, framesWithFace: result.framesWithFace, gazeSamples: result.gazeSamples,
                      eyes: result.eyes, framesNotInVideo: missing)
    }
}

/// Why a session cannot be re-analysed.
///
/// The sentences name no command; the command line adds which one to run (its `ErrorHints`).
public enum ReanalysisError: Error, CustomStringConvertible, Equatable {
    case stillRecording(sessionID: String)
    case noFrames(sessionID: String)
    case noVideo(sessionID: String)
    case frameCount(path: String, video: Int, stored: Int, missing: Int)
    case scratch(reason: String)

    public var description: String {
        switch self {
        case let .stillRecording(id):
            return "session \(id) is still being recorded (or its recorder died). Re-analyse it once it has ended."
        case let .noFrames(id):
            return "session \(id) has no stored frames to re-analyse (only sessions recorded by gazerec have them)."
        case let .noVideo(id):
            return "session \(id) was recorded without keeping its video, so there is nothing to re-analyse."
        case let .scratch(reason):
            return "cannot make a scratch folder for the re-analysis: \(reason). Check the temporary folder (TMPDIR)."
        case let .frameCount(path, video, stored, missing):
            let kept = missing > 0 ? " (\(missing) of them were left out of its video while recording)" : ""
            return "the video \(path) has \(video) frames but the session stores \(stored)\(kept): it is not this session's "
                + "video, or frames were left out of it. Nothing was changed."
        }
    }
}
