import GazeModel

extension EventTables {
    /// `_events.tsv` of a run whose session presented stimuli: the marker rows and, in onset order
    /// with them, a row per presentation at its onset and per pause, seek and stall, in five more
    /// columns (`stim_file`, `presentation_event`, `stimulus_seconds`, `from_stimulus_seconds`,
    /// `stimulus_sha256`). `stimuli` maps a file's SHA-256 to its path under the dataset's `stimuli/`.
    static func withPresentations(_ recording: BIDSRecording, stimuli: [String: String]) -> Tabular {
        let base = markers(recording)
        var table = Tabular(columns: base.columns + presentationColumns)
        var rows: [(onset: Double, cells: [String])] = base.rows.map { (Double($0[0]) ?? 0, $0 + ["n/a", "n/a", "n/a", "n/a", "n/a"]) }
        let begin = recording.beginSeconds
        for p in recording.presentations {
            let file = p.sha256.flatMap { stimuli[$0] }
            func row(_ time: Double, until end: Double?, _ event: String, _ position: Double, from: Double? = nil) {
                let onset = Tabular.runSeconds(time, since: begin)
                rows.append((onset, [Tabular.cell(onset), Tabular.cell(end.map { max(0, Tabular.runSeconds($0, since: time)) }),
                                     Tabular.cell(p.label), "n/a", Tabular.cell(file), event, Tabular.cell(position),
                                     Tabular.cell(from), Tabular.cell(p.sha256)]))
            }
            row(p.onsetSeconds, until: p.offsetSeconds, "onset", 0)
            for (index, event) in p.events.enumerated() {
                let ends: PresentationEvent.Kind? = event.kind == .pause ? .resume : event.kind == .stall ? .stallEnd : nil
                guard event.kind == .pause || event.kind == .stall || event.kind == .seek else { continue }
                let end = ends.map { kind in p.events.dropFirst(index + 1).first { $0.kind == kind }?.timestampSeconds ?? p.offsetSeconds }
                row(event.timestampSeconds, until: event.kind == .seek ? event.timestampSeconds : end ?? nil, event.kind.rawValue,
                    event.stimulusSeconds, from: event.fromStimulusSeconds)
            }
        }
        table.rows = rows.enumerated().sorted { ($0.element.onset, $0.offset) < ($1.element.onset, $1.offset) }.map(\.element.cells)
        return table
    }

    private static let presentationColumns: [Tabular.Column] = [
        Tabular.column("stim_file", "The stimulus file shown, relative to the dataset's stimuli folder (n/a when it is not there, "
                       + "for a blank screen, and on marker rows; stimulus_sha256 names it then)."),
        Tabular.column("presentation_event", "What happened to the presentation named in trial_type (its label).",
                       extra: [Tabular.levels([
                           ("onset", "Its first frame on the screen; duration until it left the screen (n/a: never recorded)."),
                           ("pause", "Playback paused; duration until it resumed (or the presentation ended)."),
                           ("seek", "Playback jumped to stimulus_seconds from from_stimulus_seconds; duration 0."),
                           ("stall", "The player waited for data and the picture froze; duration until it went on."),
                       ])]),
        Tabular.column("stimulus_seconds", "The playback position at the event, in the stimulus's own seconds from its first frame "
                       + "(a seek: where it landed).", units: "s"),
        Tabular.column("from_stimulus_seconds", "A seek's position before the jump, in the stimulus's own seconds.", units: "s"),
        Tabular.column("stimulus_sha256", "Lowercase hexadecimal SHA-256 of the stimulus file's bytes."),
    ]
}
