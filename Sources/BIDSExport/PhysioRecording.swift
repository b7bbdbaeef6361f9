import GazeModel
import JSONStream

/// One `_physio.tsv.gz` and its sidecar: the gaze on the screen (cyclopean) or one eye's values.
///
/// Samples are written as recorded, one row per gaze sample or camera frame, each with its time
/// in the `timestamp` column (seconds since the run's start): a webcam's frames do not come at a
/// regular rate, and resampling would invent values between them. `SamplingFrequency` states the
/// nominal rate (docs/ExportFormat.md).
struct PhysioRecording {
    /// `cyclopean`, `left` or `right` (BIDS's `RecordedEye`).
    var recordedEye: String
    /// BIDS's `SampleCoordinateSystem`: `gaze-on-screen` or `eye-in-head`.
    var coordinateSystem: String
    /// The unit of `x_coordinate` and `y_coordinate`.
    var coordinateUnits: String
    var table: Tabular
    /// Each row's time, seconds since the run's start.
    var timestamps: [Double]

    /// What a physio file holds: the gaze on the screen, or one eye's values.
    enum Signal: Equatable {
        case gaze
        case eye(Eye)
    }

    /// The signals `recording` has data for, in file order (`eye1`, `eye2`, …): known before any
    /// table is built, so the tables are built, written and released one at a time.
    static func signals(_ recording: BIDSRecording) -> [Signal] {
        (recording.gaze.isEmpty ? [] : [.gaze]) + [Eye.left, .right].filter { eye in
            recording.frames.contains { $0.openness(eye) != nil || $0.pupil(eye) != nil }
        }.map { .eye($0) }
    }

    /// The table of one of `signals(recording)`.
    static func table(_ signal: Signal, _ recording: BIDSRecording) -> PhysioRecording? {
        switch signal {
        case .gaze: return cyclopean(recording)
        case .eye(let eye): return self.eye(eye, recording)
        }
    }

    /// The scan path as gaze on the screen: x and y in pixels from the top-left corner.
    static func cyclopean(_ recording: BIDSRecording) -> PhysioRecording? {
        guard !recording.gaze.isEmpty else { return nil }
        let (table, timestamps) = Tabular.timed([timestampColumn,
            Tabular.column("x_coordinate", "Gaze position on the screen, from its left edge (both eyes together).",
                           units: "pixel", longName: "Gaze position (x)"),
            Tabular.column("y_coordinate", "Gaze position on the screen, from its top edge, growing downwards.",
                           units: "pixel", longName: "Gaze position (y)"),
            trackingStateColumn], recording.gaze, since: recording.beginSeconds, time: \.timestampSeconds) { sample, seconds in
            [Tabular.cell(seconds), Tabular.cell(sample.x), Tabular.cell(sample.y), sample.trackingState.rawValue]
        }
        return PhysioRecording(recordedEye: "cyclopean", coordinateSystem: "gaze-on-screen", coordinateUnits: "pixel",
                               table: table, timestamps: timestamps)
    }

    /// One eye's frames: the pupil centre in the eye (normalised to its corners), its openness, and
    /// the frame's head pose; nil when no frame has a value of that eye.
    static func eye(_ eye: Eye, _ recording: BIDSRecording) -> PhysioRecording? {
        guard recording.frames.contains(where: { $0.openness(eye) != nil || $0.pupil(eye) != nil }) else { return nil }
        let (table, timestamps) = Tabular.timed(eyeColumns(eye), recording.frames, since: recording.beginSeconds,
                                                time: \.timestampSeconds) { frame, seconds in
            let pose = frame.headPose
            let values: [Double?] = [seconds, frame.pupil(eye)?.x, frame.pupil(eye)?.y, frame.openness(eye)]
            let head: [Double?] = [pose?.yawDegrees, pose?.pitchDegrees, pose?.rollDegrees,
                                   pose?.translation.x, pose?.translation.y, pose?.translation.z]
            return values.map(Tabular.cell) + [frame.trackingState.rawValue, Tabular.cell(frame.confidence)]
                + head.map(Tabular.cell)
        }
        return PhysioRecording(recordedEye: eye.rawValue, coordinateSystem: "eye-in-head", coordinateUnits: "arbitrary",
                               table: table, timestamps: timestamps)
    }

    static let timestampColumn = Tabular.column(
        "timestamp", "Time of the sample: seconds since the start of the run, the recording's begin time (scans.tsv acq_time).",
        units: "s", extra: [("Origin", .string("start of the run"))])

    static let trackingStateColumn = Tabular.column(
        "tracking_state", "How well the camera frame behind the sample was tracked.",
        extra: [Tabular.levels([
            ("normal", "A face was fitted with good confidence."),
            ("initializing", "The first frames after a face was found, before the estimates settled."),
            ("lowConfidence", "A face was fitted with low confidence (occlusion, strong head turn, poor light)."),
            ("excessiveMotion", "The face moved too far since the previous frame for the estimate to be trusted."),
            ("missing", "No face in the frame."),
        ])])

    private static func eyeColumns(_ eye: Eye) -> [Tabular.Column] {
        let which = "the participant's \(eye.rawValue) eye"
        return [timestampColumn,
            Tabular.column("x_coordinate", "Pupil centre of \(which) along the line between its corners, from the corner on "
                           + "the camera image's left, in corner distances (0 at that corner, 1 at the other).",
                           units: "arbitrary", longName: "Pupil position in the eye (x)"),
            Tabular.column("y_coordinate", "Pupil centre of \(which) below the line between its corners (downwards in the "
                           + "camera image), in corner distances.", units: "arbitrary", longName: "Pupil position in the eye (y)"),
            Tabular.column("openness", "Openness of \(which) from its eye aspect ratio against its own open level: 0 closed, 1 open."),
            trackingStateColumn,
            Tabular.column("confidence", "Confidence of the frame's facial landmark fit, 0 to 1 (0 without a face)."),
            Tabular.column("head_yaw", "Head yaw, positive when the face turns towards the participant's right.", units: "deg"),
            Tabular.column("head_pitch", "Head pitch, positive when the chin goes up.", units: "deg"),
            Tabular.column("head_roll", "Head roll, positive when the head leans towards the participant's left shoulder.",
                           units: "deg"),
            Tabular.column("head_x", "Head position (midway between the eye corners) to the camera image's right.", units: "mm"),
            Tabular.column("head_y", "Head position below the camera's optical axis (camera axes, y down).", units: "mm"),
            Tabular.column("head_z", "Head distance along the camera's optical axis.", units: "mm"),
        ]
    }

    /// The nominal rate when known, else one over the median interval between rows (0.01 Hz
    /// steps); 0 when there are fewer than two rows to measure it from.
    func samplingFrequencyHertz(nominal: Double?) -> Double {
        Self.samplingFrequencyHertz(timestamps: timestamps, nominal: nominal)
    }

    /// `samplingFrequencyHertz(nominal:)` of rows at `timestamps` (seconds, in order): the one rule
    /// for every physio file of a run.
    static func samplingFrequencyHertz(timestamps: [Double], nominal: Double?) -> Double {
        if let nominal, nominal > 0 { return nominal }
        guard timestamps.count > 1 else { return 0 }
        let intervals = zip(timestamps.dropFirst(), timestamps).map { $0 - $1 }.filter { $0 > 0 }.sorted()
        guard !intervals.isEmpty else { return 0 }
        return (100 / intervals[intervals.count / 2]).rounded() / 100
    }
}
