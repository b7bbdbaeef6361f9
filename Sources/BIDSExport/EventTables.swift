import GazeAnalysis
import GazeModel

/// The run's events as BIDS tables: the experiment's markers (`_events.tsv`) and what the recorder
/// detected with the markers as messages (`_physioevents.tsv.gz`).
enum EventTables {
    /// `_events.tsv`: one row per marker; onset in seconds since the run's start, lasting until the
    /// next marker (the last until the session's end; `n/a` when the session never ended).
    static func markers(_ recording: BIDSRecording) -> Tabular {
        var table = Tabular(columns: [
            Tabular.column("onset", "Time of the marker, seconds since the start of the run.", units: "s"),
            Tabular.column("duration", "Until the next marker (the last one: until the recording ended).", units: "s"),
            Tabular.column("trial_type", "The marker's label, as the experiment software sent it."),
            Tabular.column("marker_data", "The data sent with the marker (compact JSON text), if any."),
        ])
        let markers = recording.markers.sorted { $0.timestampSeconds < $1.timestampSeconds }
        for (index, marker) in markers.enumerated() {
            let end = index + 1 < markers.count ? markers[index + 1].timestampSeconds : recording.endSeconds
            let duration = end.map { max(0, Tabular.runSeconds($0, since: marker.timestampSeconds)) }
            table.rows.append([Tabular.cell(Tabular.runSeconds(marker.timestampSeconds, since: recording.beginSeconds)),
                               Tabular.cell(duration), Tabular.cell(marker.label), Tabular.cell(marker.dataJSON)])
        }
        return table
    }

    /// `_physioevents.tsv.gz`: fixations, blinks, long closures and marker messages in time order,
    /// onsets on the `timestamp` column's timeline (seconds since the run's start).
    static func detected(_ recording: BIDSRecording) -> Tabular {
        var rows: [(onset: Double, cells: [String])] = []
        let begin = recording.beginSeconds
        for fixation in recording.fixations {
            let onset = Tabular.runSeconds(fixation.startSeconds, since: begin)
            rows.append((onset, [Tabular.cell(onset), Tabular.cell(Tabular.runSeconds(fixation.endSeconds, since: fixation.startSeconds)),
                                 "fixation", "0", "n/a", "n/a", Tabular.cell(fixation.x), Tabular.cell(fixation.y)]))
        }
        for blink in recording.blinks {
            let onset = Tabular.runSeconds(blink.startSeconds, since: begin)
            rows.append((onset, [Tabular.cell(onset), Tabular.cell(Tabular.runSeconds(blink.endSeconds, since: blink.startSeconds)),
                                 blink.kind == .blink ? "blink" : "long_closure", "1", "n/a", blink.eyes.rawValue, "n/a", "n/a"]))
        }
        for marker in recording.markers {
            let onset = Tabular.runSeconds(marker.timestampSeconds, since: begin)
            rows.append((onset, [Tabular.cell(onset), "0", "n/a", "n/a", Tabular.cell(marker.label), "n/a", "n/a", "n/a"]))
        }
        var table = Tabular(columns: detectedColumns)
        table.rows = rows.enumerated().sorted { ($0.element.onset, $0.offset) < ($1.element.onset, $1.offset) }
            .map(\.element.cells)
        return table
    }

    private static let detectedColumns: [Tabular.Column] = [
        Tabular.column("onset", "Start of the event on the timeline of the physio file's timestamp column.", units: "s"),
        Tabular.column("duration", "Length of the event (0 for a message).", units: "s"),
        Tabular.column("trial_type", "What the recorder detected (n/a for a message).", extra: [Tabular.levels([
            ("fixation", "A fixation: gaze samples that stay together (I-DT)."),
            ("blink", "An eye closure within the plausible blink duration."),
            ("long_closure", "An eye closure longer than a blink (eyes shut, drowsiness)."),
        ])]),
        Tabular.column("blink", "Whether the eyes were closed during the event.", extra: [Tabular.levels([
            ("0", "The eyes were open."), ("1", "The eyes were closed."),
        ])]),
        Tabular.column("message", "An event marker the experiment software sent: its label."),
        Tabular.column("eye", "Which of the participant's eyes closed.", extra: [Tabular.levels([
            ("both", "Both eyes."), ("left", "Only the participant's left eye (a wink)."), ("right", "Only the participant's right eye."),
        ])]),
        Tabular.column("x_coordinate", "Centroid of a fixation on the screen, from its left edge.", units: "pixel"),
        Tabular.column("y_coordinate", "Centroid of a fixation on the screen, from its top edge, growing downwards.", units: "pixel"),
    ]
}
