import ArgumentParser
import StimulusStudy

/// `gazerec stimulus aoi`: one row per session and area of interest.
struct StimulusAOICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aoi",
        abstract: "Dwell, time to first fixation, first fixation, fixations and visits per session and area of interest.",
        discussion: """
            --aois is a JSON array of areas in stimulus pixels: {"name", "rect": [x, y, w, h]}, \
            {"name", "ellipse": [cx, cy, rx, ry]}, {"name", "polygon": [[x, y], ...]}, or {"name", \
            "keyframes": [{"t": seconds, "rect": [...]}, ...]} moving linearly between keyframes and \
            existing only from the first to the last. Areas may overlap: each counts on its own.
            """)

    @OptionGroup var options: StimulusOptions

    @Option(help: ArgumentHelp("The areas of interest (JSON).", valueName: "file"))
    var aois: String

    @Option(help: ArgumentHelp("The marker that ended the stimulus (default: a video's duration, else the session's end).",
                               valueName: "label"))
    var end: String?

    @Option(help: "Output format.")
    var format: StimulusFormat = .csv

    func validate() throws {
        if end?.isEmpty == true { throw ValidationError("--end is empty: give a marker label.") }
    }

    func run() throws {
        let areas = try StimulusStudy.areas(path: aois)
        let (database, ids, study) = try options.open(end: end)
        try StimulusOptions.print(try study.areasOfInterest(database, ids: ids, areas: areas), format: format)
    }
}
