/// gazerec's own data about a session, typed: the `"gazerec"` object of its EyeTracking JSON.
///
/// The recorder writes one, `recalibrate` changes its calibration members, `reanalyze` its
/// `reanalysis` member, `show`, `export` and the fixation commands read it; the session store's
/// codec (`SessionExtensionCodec.swift`) is the only code that turns it into JSON and back. The
/// per-frame series, blink events and markers (`Name.frames`, `Name.blinks`, `Name.markers`, and
/// `Name.expressions` for a recording asked for expressions) are not
/// members here: they live in their own tables, and the codec streams them after these members on
/// export and into their tables on import, as it writes the members derived on export
/// (`Name.attention`, `Name.fixations`, `Name.movement`).
///
/// Members keep the order they were read in, and a member read from a stored or imported
/// document and left unchanged is written back with exactly its original text (`verbatim`), so
/// an export of an import is byte-identical. Members this version does not know are kept as
/// compact JSON text.
public struct SessionExtension: Sendable, Equatable {
    /// One member's value.
    public enum Value: Sendable, Equatable {
        /// `formatVersion`: the version of this object's layout (1).
        case formatVersion(Int)
        /// `recorder`: how the session was recorded.
        case recorder(RecordingFacts)
        /// `calibrationApplied`: whether a calibration mapped the scan path.
        case calibrationApplied(Bool)
        /// `calibration`: the calibration that did.
        case calibration(CalibrationReference)
        /// `smoothing`: the smoothing of the gaze stream.
        case smoothing(GazeSmoothing)
        /// `endedBy`: the error that ended the recording early.
        case endedBy(String)
        /// `interrupted`: the recorder died before closing the session (closed later by repair).
        case interrupted(Bool)
        /// `warnings`: what makes the session's data doubtful (no face found, say), one sentence each.
        case warnings([String])
        /// `eyes`: the session's blink figures (blinks, long closures, PERCLOS).
        case eyes(EyeSummary)
        /// `reanalysis`: when and how the session's saved video was analysed again.
        case reanalysis(ReanalysisFacts)
        /// Any other member, as compact JSON text.
        case other(json: String)
    }

    /// One named member and, when it was read from a document and not changed since, its text.
    public struct Member: Sendable, Equatable {
        public var name: String
        public var value: Value
        /// The member's compact JSON text as read; nil once changed (it is then encoded anew).
        public var verbatim: String?

        public init(name: String, value: Value, verbatim: String? = nil) {
            self.name = name
            self.value = value
            self.verbatim = verbatim
        }
    }

    public private(set) var members: [Member]

    public init(members: [Member] = []) { self.members = members }

    /// The member names gazerec interprets, in the order a recorder writes them.
    public enum Name {
        public static let formatVersion = "formatVersion"
        public static let recorder = "recorder"
        public static let calibrationApplied = "calibrationApplied"
        public static let calibration = "calibration"
        public static let smoothing = "smoothing"
        public static let endedBy = "endedBy"
        public static let interrupted = "interrupted"
        public static let warnings = "warnings"
        public static let eyes = "eyes"
        public static let reanalysis = "reanalysis"
        /// Members derived from the stored data on export (not kept in this type).
        public static let attention = "attention"
        public static let fixations = "fixations"
        public static let movement = "movement"
        /// Members streamed from and into their own tables (not kept in this type).
        public static let frames = "frames"
        public static let blinks = "blinks"
        public static let markers = "markers"
        /// Each frame's expression probabilities (`ExpressionSample`), streamed from and into their table.
        public static let expressions = "expressions"
        /// What the presenter showed (`Presentation`), streamed from and into their tables.
        public static let presentations = "presentations"
    }

    /// The current layout version written by recorders.
    public static let currentFormatVersion = 1

    /// The value of the member named `name`.
    public subscript(name: String) -> Value? {
        members.first { $0.name == name }?.value
    }

    /// Sets a member: in place if present (dropping its stored text), else appended; nil removes it.
    public mutating func set(_ name: String, _ value: Value?) {
        let index = members.firstIndex { $0.name == name }
        switch (index, value) {
        case let (index?, value?): members[index] = Member(name: name, value: value)
        case let (index?, nil): members.remove(at: index)
        case let (nil, value?): members.append(Member(name: name, value: value))
        case (nil, nil): break
        }
    }

    public var formatVersion: Int? {
        get { if case .formatVersion(let v)? = self[Name.formatVersion] { v } else { nil } }
        set { set(Name.formatVersion, newValue.map { .formatVersion($0) }) }
    }

    public var recorder: RecordingFacts? {
        get { if case .recorder(let v)? = self[Name.recorder] { v } else { nil } }
        set { set(Name.recorder, newValue.map { .recorder($0) }) }
    }

    public var calibrationApplied: Bool? {
        get { if case .calibrationApplied(let v)? = self[Name.calibrationApplied] { v } else { nil } }
        set { set(Name.calibrationApplied, newValue.map { .calibrationApplied($0) }) }
    }

    public var calibration: CalibrationReference? {
        get { if case .calibration(let v)? = self[Name.calibration] { v } else { nil } }
        set { set(Name.calibration, newValue.map { .calibration($0) }) }
    }

    public var smoothing: GazeSmoothing? {
        get { if case .smoothing(let v)? = self[Name.smoothing] { v } else { nil } }
        set { set(Name.smoothing, newValue.map { .smoothing($0) }) }
    }

    public var endedBy: String? {
        get { if case .endedBy(let v)? = self[Name.endedBy] { v } else { nil } }
        set { set(Name.endedBy, newValue.map { .endedBy($0) }) }
    }

    public var interrupted: Bool? {
        get { if case .interrupted(let v)? = self[Name.interrupted] { v } else { nil } }
        set { set(Name.interrupted, newValue.map { .interrupted($0) }) }
    }

    public var warnings: [String]? {
        get { if case .warnings(let v)? = self[Name.warnings] { v } else { nil } }
        set { set(Name.warnings, newValue.map { .warnings($0) }) }
    }

    public var eyes: EyeSummary? {
        get { if case .eyes(let v)? = self[Name.eyes] { v } else { nil } }
        set { set(Name.eyes, newValue.map { .eyes($0) }) }
    }

    public var reanalysis: ReanalysisFacts? {
        get { if case .reanalysis(let v)? = self[Name.reanalysis] { v } else { nil } }
        set { set(Name.reanalysis, newValue.map { .reanalysis($0) }) }
    }

    /// Records the calibration that maps the scan path (nil: none, no scan path) and the smoothing.
    ///
    /// Replaces the three calibration members wherever they stood, as `recalibrate` does, and
    /// moves them to the end, the order a recorder writes them in.
    public mutating func applyCalibration(_ reference: CalibrationReference?, smoothing: GazeSmoothing) {
        for name in [Name.calibrationApplied, Name.calibration, Name.smoothing] { set(name, nil) }
        calibrationApplied = reference != nil
        if let reference {
            calibration = reference
            self.smoothing = smoothing
        }
    }
}

/// How a session was recorded (`"gazerec"."recorder"`). Every count and rate is known only once
/// the recording has ended; while it runs, the stored object has the first six members.
public struct RecordingFacts: Sendable, Equatable {
    /// The gazerec version that recorded.
    public var version: String
    /// Whether frames came from a camera or a video file replayed as a camera.
    public var sourceKind: SourceKind
    /// The camera's device path, or the video file's path.
    public var sourceName: String
    /// Frame width and height in pixels.
    public var width: Int
    public var height: Int
    public var requestedFramesPerSecond: Double
    /// The landmark model file.
    public var modelPath: String
    /// The face model head poses were measured with (`HeadPoseModelName`); nil in sessions
    /// recorded before it was named: the six-point model.
    public var headPoseModel: String?
    /// The blink rule the session's blink events were found with (`BlinkRule`'s name); nil in
    /// sessions recorded before it was named.
    public var blinkRule: String?
    /// The rule of the upright check faces were judged by (`UprightRule`'s name: which faces a
    /// detector found are reported, which flagged as not upright); nil in sessions recorded before
    /// it was named.
    public var uprightRule: String?
    /// The focal length head poses were measured with, in pixels (nil: the frame width).
    public var focalLengthPixels: Double?
    /// Why frames were turned back left to right before analysis (nil: they were not).
    public var mirrored: MirrorReason?
    /// Camera controls set when the camera opened, in order, with the values read back.
    public var cameraControls: [NamedValue]?
    /// The video the recorder kept of the frames it analysed (`start` told to save it).
    public var savedVideo: SavedVideo?
    public var grantedFramesPerSecond: Double?
    /// Frames over the recording's wall time, to two decimals.
    public var achievedFramesPerSecond: Double?
    public var frames: Int?
    public var framesWithFace: Int?
    public var droppedFrames: Int?
    public var detectorRuns: Int?
    /// From a frame's capture (or due) time to its measurement, median and 95th percentile, to 0.1 ms.
    public var lagMedianMilliseconds: Double?
    public var lagP95Milliseconds: Double?
    /// CPU time of the recording, all threads, model loading excluded, to the millisecond.
    public var cpuSeconds: Double?
    /// `cpuSeconds` over the recording's wall time, in percent of one core (100 = one core busy
    /// all the time; up to 100 × the cores), to 0.1.
    public var cpuPercentOfOneCore: Double?
    /// The advice of the seating check over the recording's first second when it was out of
    /// range (nil: in range, or the recording was shorter than a second).
    public var seatingAdvice: String?

    /// Why a recording's frames were mirrored back.
    public enum MirrorReason: String, Sendable, Equatable {
        /// The user said the source is mirrored.
        case option
        /// The camera reported its horizontal-flip control on.
        case camera
    }

    /// A video file of a recording's frames, as analysed (gray, lossless), one per stored frame
    /// unless frames were dropped from it.
    public struct SavedVideo: Sendable, Equatable {
        public var path: String
        public var frames: Int
        /// Frames left out because writing fell behind (then the video and the stored frames no
        /// longer pair one to one, and it cannot be re-analysed into the session).
        public var droppedFrames: Int

        public init(path: String, frames: Int, droppedFrames: Int) {
            self.path = path
            self.frames = frames
            self.droppedFrames = droppedFrames
        }

        /// The title the recorder writes into the video file's header: the proof that a file at
        /// `path` is this session's own recording (an imported session's path names another
        /// machine's file, which a deletion here must never touch).
        public static func title(sessionID: String) -> String { "gazerec session \(sessionID)" }
    }

    /// A camera control's name and value.
    public struct NamedValue: Sendable, Equatable {
        public var name: String
        public var value: Int

        public init(name: String, value: Int) {
            self.name = name
            self.value = value
        }
    }

    /// Where frames came from.
    public enum SourceKind: String, Sendable, Equatable {
        case camera
        case file
    }

    public init(version: String, sourceKind: SourceKind, sourceName: String, width: Int, height: Int,
                requestedFramesPerSecond: Double, modelPath: String) {
        self.version = version
        self.sourceKind = sourceKind
        self.sourceName = sourceName
        self.width = width
        self.height = height
        self.requestedFramesPerSecond = requestedFramesPerSecond
        self.modelPath = modelPath
    }
}

/// What a session records about the calibration its scan path was mapped with (`"gazerec"."calibration"`).
public struct CalibrationReference: Sendable, Equatable {
    public var id: String
    public var name: String?
    /// Unix seconds.
    public var createdAtSeconds: Double
    /// Calibration targets.
    public var points: Int
    /// Validation accuracy in screen points (2 decimals) and degrees (3 decimals), when measured.
    public var accuracyPoints: Double?
    public var accuracyDegrees: Double?
    /// The screen's physical size and the viewing distance the calibration was made with, when
    /// given (`viewingGeometry`); its size in points is the session's screen.
    public var viewing: ViewingDistances?
    /// When `recalibrate` applied it to an already recorded session (Unix seconds).
    public var recalibratedAtSeconds: Double?

    public init(id: String, name: String?, createdAtSeconds: Double, points: Int, accuracyPoints: Double?,
                accuracyDegrees: Double?, viewing: ViewingDistances?, recalibratedAtSeconds: Double? = nil) {
        self.id = id
        self.name = name
        self.createdAtSeconds = createdAtSeconds
        self.points = points
        self.accuracyPoints = accuracyPoints
        self.accuracyDegrees = accuracyDegrees
        self.viewing = viewing
        self.recalibratedAtSeconds = recalibratedAtSeconds
    }
}

/// A screen's physical size and the viewer's distance from it, in millimetres.
public struct ViewingDistances: Sendable, Equatable {
    public var screenWidthMillimetres: Double
    public var screenHeightMillimetres: Double
    public var distanceMillimetres: Double

    public init(screenWidthMillimetres: Double, screenHeightMillimetres: Double, distanceMillimetres: Double) {
        self.screenWidthMillimetres = screenWidthMillimetres
        self.screenHeightMillimetres = screenHeightMillimetres
        self.distanceMillimetres = distanceMillimetres
    }

    /// The geometry of a screen of `width` × `height` points with these distances.
    public func geometry(widthPoints: Double, heightPoints: Double) -> ScreenGeometry {
        ScreenGeometry(widthPoints: widthPoints, heightPoints: heightPoints, widthMillimetres: screenWidthMillimetres,
                       heightMillimetres: screenHeightMillimetres, distanceMillimetres: distanceMillimetres)
    }
}

/// A session's blink figures (`"gazerec"."eyes"`), from its frames with a face.
public struct EyeSummary: Sendable, Equatable {
    /// Blink events of kind `blink`.
    public var blinks: Int
    /// Blink events of kind `longClosure` (the eyes shut longer than a blink).
    public var longClosures: Int
    /// Blinks per minute of frames with a face.
    public var blinksPerMinute: Double
    /// PERCLOS (P80): the share 0…1 of frames with a face in which the eyes were at least 80 %
    /// closed (both eyes' mean openness ≤ 0.2), the drowsiness measure of driver monitoring.
    public var perclos: Double
    /// Frames with a face the figures are over.
    public var framesWithFace: Int

    public init(blinks: Int, longClosures: Int, blinksPerMinute: Double, perclos: Double, framesWithFace: Int) {
        self.blinks = blinks
        self.longClosures = longClosures
        self.blinksPerMinute = blinksPerMinute
        self.perclos = perclos
        self.framesWithFace = framesWithFace
    }
}

/// When and how a session's saved video was analysed again (`"gazerec"."reanalysis"`).
public struct ReanalysisFacts: Sendable, Equatable {
    /// Unix seconds, to the millisecond.
    public var atSeconds: Double
    /// The gazerec version that re-analysed.
    public var version: String
    /// The video file analysed.
    public var videoPath: String
    /// The re-analysis' figures (absent when it recorded none).
    public var framesWithFace: Int?
    public var detectorRuns: Int?

    public init(atSeconds: Double, version: String, videoPath: String, framesWithFace: Int? = nil, detectorRuns: Int? = nil) {
        self.atSeconds = atSeconds
        self.version = version
        self.videoPath = videoPath
        self.framesWithFace = framesWithFace
        self.detectorRuns = detectorRuns
    }
}
