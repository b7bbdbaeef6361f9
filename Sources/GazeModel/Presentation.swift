/// One item the presenter showed during a recording (`gazerec start --present`): a video, an image or
/// a blank grey screen with a fixation cross, from its onset to its offset. Tobii Pro Lab calls a
/// showing a Time of Interest: the same file shown twice is two presentations.
///
/// Times are on the session's clock (Unix seconds, the frames' time base); positions inside the
/// stimulus are in the stimulus's own seconds (its playback position, 0 at its first frame); the
/// rectangle is in the session's screen points (origin at the screen's top-left, x right, y down).
public struct Presentation: Sendable, Equatable {
    /// What was shown.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case video, image, blank
    }

    /// Why a presentation ended.
    public enum Ending: Sendable, Equatable {
        /// The item played to its end (an image or blank: its seconds ran out).
        case finished
        /// Ended before its end: the participant pressed Esc or q, the recording was stopped, or the
        /// player died; the reason says which, in a sentence.
        case cutShort(reason: String)
    }

    /// 0-based order of the presentation in its session.
    public var index: Int
    /// The label given in the playlist, or the file's name without its extension.
    public var label: String
    public var kind: Kind
    /// The file's last path component as shown; nil for a blank screen.
    public var fileName: String?
    /// The file's size in bytes; nil for a blank screen.
    public var byteSize: Int?
    /// Lowercase hexadecimal SHA-256 of the file's bytes (how a renamed copy is matched); nil for a blank.
    public var sha256: String?
    /// The stimulus's own duration in seconds (a video's length; an image's or a blank's seconds shown).
    public var durationSeconds: Double?
    /// A video's frame rate (frames per second); nil for an image or a blank.
    public var frameRate: Double?
    /// The stimulus's own picture size in pixels; nil for a blank.
    public var widthPixels: Int?
    public var heightPixels: Int?
    /// Where the stimulus's picture sat on the screen, in screen points (the player's window less its
    /// letterbox margins); nil for a blank.
    public var rect: PresentationRect?
    /// Session clock (Unix seconds): when its first frame was on the screen.
    public var onsetSeconds: Double
    /// Session clock: when it left the screen; nil while it is still shown.
    public var offsetSeconds: Double?
    /// Every pause, resume, seek and stall, in time order.
    public var events: [PresentationEvent]
    /// The playback position observed over time (the player's clock against the session's), in time
    /// order: what a frame's position in the stimulus is read from.
    public var playback: [PlaybackSample]
    /// Nil while it is still shown.
    public var ending: Ending?

    public init(index: Int, label: String, kind: Kind, fileName: String? = nil, byteSize: Int? = nil,
                sha256: String? = nil, durationSeconds: Double? = nil, frameRate: Double? = nil,
                widthPixels: Int? = nil, heightPixels: Int? = nil, rect: PresentationRect? = nil,
                onsetSeconds: Double, offsetSeconds: Double? = nil, events: [PresentationEvent] = [],
                playback: [PlaybackSample] = [], ending: Ending? = nil) {
        self.index = index
        self.label = label
        self.kind = kind
        self.fileName = fileName
        self.byteSize = byteSize
        self.sha256 = sha256
        self.durationSeconds = durationSeconds
        self.frameRate = frameRate
        self.widthPixels = widthPixels
        self.heightPixels = heightPixels
        self.rect = rect
        self.onsetSeconds = onsetSeconds
        self.offsetSeconds = offsetSeconds
        self.events = events
        self.playback = playback
        self.ending = ending
    }
}

/// A rectangle on the screen in screen points: left and top edges, width and height.
public struct PresentationRect: Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// Something that happened to a presentation while it was shown.
public struct PresentationEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// Playback paused (the position holds until `resume`).
        case pause
        /// Playback resumed after a pause.
        case resume
        /// A jump: `stimulusSeconds` is where it landed, `fromStimulusSeconds` where it was.
        case seek
        /// The player waited for data or decoding (the picture froze without a pause).
        case stall
        /// Playback went on after a stall.
        case stallEnd
    }

    public var kind: Kind
    /// Session clock (Unix seconds).
    public var timestampSeconds: Double
    /// The playback position at the event, in the stimulus's own seconds (a seek: where it landed).
    public var stimulusSeconds: Double
    /// A seek's position before the jump; nil for other events.
    public var fromStimulusSeconds: Double?

    public init(kind: Kind, timestampSeconds: Double, stimulusSeconds: Double, fromStimulusSeconds: Double? = nil) {
        self.kind = kind
        self.timestampSeconds = timestampSeconds
        self.stimulusSeconds = stimulusSeconds
        self.fromStimulusSeconds = fromStimulusSeconds
    }
}

/// One observation of the player's clock: at `timestampSeconds` on the session's clock, the picture
/// on the screen was the stimulus's `stimulusSeconds`.
public struct PlaybackSample: Sendable, Equatable {
    public var timestampSeconds: Double
    public var stimulusSeconds: Double

    public init(timestampSeconds: Double, stimulusSeconds: Double) {
        self.timestampSeconds = timestampSeconds
        self.stimulusSeconds = stimulusSeconds
    }
}
