import GazeModel
import JSONStream

/// The run's `recording-expressions` physio file (`PhysioType: generic`): each frame's expression
/// probabilities and smile, one row per expression sample.
///
/// A file of its own, not columns of the eye files: its rows are the frames with a face that went
/// through the expression model, so it starts at the first face and skips the frames without one,
/// while the eye files have a row for every frame; BIDS gives a continuous recording with its own
/// start or rate a `recording-<label>` of its own. It is a generic physiological recording, not an
/// eye-tracking one (it has no gaze coordinates and no recorded eye). Rows are written as recorded,
/// each with its time, as the eye files' are (docs/ExportFormat.md).
struct ExpressionRecording {
    /// The `recording-<label>` of the file.
    static let label = "expressions"

    var table: Tabular
    /// Each row's time, seconds since the run's start.
    var timestamps: [Double]

    /// The recording's expression samples with the smile of the same frame time; nil without samples.
    init?(_ recording: BIDSRecording) {
        guard !recording.expressions.isEmpty else { return nil }
        var smile: [Double: Double] = [:]
        for value in recording.smile { smile[value.timestampSeconds] = value.value }
        (table, timestamps) = Tabular.timed(Self.columns, recording.expressions, since: recording.beginSeconds,
                                            time: \.timestampSeconds) { sample, seconds in
            let probabilities: [Double?] = sample.probabilities.values
            return ([seconds] + probabilities + [smile[sample.timestampSeconds]]).map(Tabular.cell)
        }
    }

    /// What each expression's column describes the probability of.
    private static let meanings: [ExpressionName: String] = [
        .neutral: "a neutral expression", .happy: "happiness", .surprise: "surprise", .sad: "sadness",
        .angry: "anger", .disgust: "disgust", .fear: "fear",
    ]

    static let columns: [Tabular.Column] = [PhysioRecording.timestampColumn]
        + ExpressionName.allCases.map { name in
            Tabular.column(name.rawValue, "Probability (0 to 1, no unit) that the face shows \(meanings[name]!), by the "
                           + "expression model; the seven probabilities of a row sum to 1.",
                           longName: "Probability of \(name.rawValue)")
        }
        + [Tabular.column("smile", "Smile on the same frame: the mean of the mouthSmile_L and mouthSmile_R blend shapes, "
                          + "0 (mouth corners at the participant's neutral level) to 1 (raised by 10 mm or more), no unit; "
                          + "n/a when the frame has no smile value.")]

    /// The file's `_physio.json`: what BIDS requires of a physiological recording, the system that
    /// measured it, the session it belongs to, and each column.
    func sidecar(task: String, _ recording: BIDSRecording) -> JSONValue {
        let members: [(String, JSONValue)] = [
            ("TaskName", .string(task)),
            ("PhysioType", .string("generic")),
            ("SamplingFrequency", .number(PhysioRecording.samplingFrequencyHertz(timestamps: timestamps,
                                                                                nominal: recording.nominalFramesPerSecond))),
            ("StartTime", .number(timestamps.first ?? 0)),
            ("Columns", .array(table.columns.map { .string($0.name) })),
            ("Description", .string("Facial expressions of each camera frame with a face: the probabilities of seven basic "
                                    + "expressions from the mini-Xception network trained on FER-2013, run on the face cut out "
                                    + "on its 68 landmarks, and the smile measured on the same landmarks.")),
        ]
        // The recording system as the eye files name it, without their eye-tracking method.
        let system = Sidecars.system(recording).filter { $0.0 != "EyeTrackingMethod" }
        return .object(members + system + [("GazerecSessionID", .string(recording.sessionID))] + table.sidecarMembers)
    }
}
