import GazeCapture

/// A stimulus's own pixel size and, for a video, its rate and duration, read from its file.
public struct StimulusFile: Sendable, Equatable {
    public var path: String
    public var widthPixels: Int
    public var heightPixels: Int
    /// Frames per second of a video (nil for an image).
    public var framesPerSecond: Double?
    /// Duration of a video in seconds (nil for an image).
    public var durationSeconds: Double?

    public init(path: String, widthPixels: Int, heightPixels: Int, framesPerSecond: Double?, durationSeconds: Double?) {
        self.path = path
        self.widthPixels = widthPixels
        self.heightPixels = heightPixels
        self.framesPerSecond = framesPerSecond
        self.durationSeconds = durationSeconds
    }

    /// Reads the file's size (and, for a video, rate and duration) with FFmpeg's libraries: a file
    /// with more than one frame and a duration is a video, anything else an image. A rotated video
    /// is measured as it is shown.
    public static func read(path: String) throws -> StimulusFile {
        let source: VideoFileSource
        do {
            source = try VideoFileSource(path: path)
        } catch {
            throw StimulusStudyError.cannotReadStimulus(path: path, reason: "\(error)")
        }
        let rotated = source.rotationDegrees % 180 != 0
        let isVideo = source.durationSeconds > 0 && source.frameCountHint != 1 && source.framesPerSecond > 0
        return StimulusFile(path: path, widthPixels: rotated ? source.height : source.width,
                            heightPixels: rotated ? source.width : source.height,
                            framesPerSecond: isVideo ? source.framesPerSecond : nil,
                            durationSeconds: isVideo ? source.durationSeconds : nil)
    }
}

/// Why a stimulus study cannot run: data and a sentence naming no command or flag.
public enum StimulusStudyError: Error, Equatable, CustomStringConvertible {
    case cannotReadStimulus(path: String, reason: String)
    case cannotReadAOIs(path: String, reason: String)
    case cannotReadParticipants(path: String, reason: String)
    /// No session could be analysed: each one's reason, in the order given.
    case noUsableSession(reasons: [String])
    /// A video is to be written to a file whose extension names no kind of video gazerec writes.
    case unknownVideoKind(path: String)
    case cannotWriteVideo(path: String, reason: String)
    /// Highlight clips were asked of a still image.
    case imageHasNoClips(path: String)
    /// No session presented the stimulus (no presentation of a file with its SHA-256), so its place
    /// and time must be given.
    case notPresented(path: String, sha256: String)
    /// A session showed the stimulus several times and the analysis takes one viewing per participant.
    case severalShowings(sessionID: String, count: Int)

    public var description: String {
        switch self {
        case let .cannotReadStimulus(path, reason): "cannot read the stimulus \(path): \(reason)"
        case let .cannotReadAOIs(path, reason): "cannot read the areas of interest file \(path): \(reason)"
        case let .cannotReadParticipants(path, reason): "cannot read the participants file \(path): \(reason)"
        case let .noUsableSession(reasons):
            "none of the \(reasons.count) sessions could be analysed against the stimulus: " + reasons.joined(separator: "; ")
        case let .unknownVideoKind(path):
            "cannot write the video \(path): its name must end in .mkv (FFV1, lossless) or .mp4 (H.264)"
        case let .cannotWriteVideo(path, reason): "cannot write the video \(path): \(reason)"
        case let .imageHasNoClips(path): "the stimulus \(path) is an image: there is no video to cut highlight clips from."
        case let .notPresented(path, sha256):
            "none of the sessions presented \(path) (no presentation of a file with its SHA-256 \(sha256.prefix(12))…): "
                + "where and when it was shown must be given."
        case let .severalShowings(id, count):
            "session \(id) showed the stimulus \(count) times and this analysis takes one viewing per participant."
        }
    }
}
