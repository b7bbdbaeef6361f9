import GazeModel

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
    /// samples stay readable and a repair closes it later).
    public var closed: Bool
    /// Why the recording ended before it was stopped or showed every item, as stored in the
    /// session's `endedBy` (the participant quit the presentation, the stimulus player died); nil otherwise.
    public var endedBy: String?
    /// Whether the database's write-ahead log was folded into the database file when the recording
    /// ended (false on a disk too full for the file to grow: the file alone then lacks the session,
    /// which is in the `-wal` file beside it until a later command folds it in).
    public var logFolded = true
}
