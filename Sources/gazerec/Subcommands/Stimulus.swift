import ArgumentParser
import Foundation
import GazeModel
import JSONStream
import SessionStore
import StimulusAnalysis
import StimulusStudy

extension Gazerec {
    /// `gazerec stimulus …`: what sessions looked at and felt on a stimulus shown at a known place.
    struct Stimulus: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Analyse sessions against a stimulus (image or video) shown at a known place on the screen, or presented by gazerec.",
            discussion: """
                --rect is where the stimulus was shown, in the session's screen points (X,Y its top-left); \
                gaze maps into the stimulus's own pixels (x right, y down from its top-left). Stimulus time \
                is the sample's time since the --start marker (default the session's start); --end or a \
                video's duration ends it. Without --rect, sessions recorded with 'gazerec start --present' \
                place it themselves: the presentations of a file with the stimulus's content (SHA-256; a \
                renamed copy matches) give its rectangle and stimulus time is the playback position then \
                (pauses and seeks followed); each showing is analysed on its own (--showing). A session that \
                cannot be analysed is named on stderr and the others still are (docs/Analysis.md, "Stimuli").
                """,
            subcommands: [StimulusTimelineCommand.self, StimulusAOICommand.self, StimulusHighlightsCommand.self,
                          StimulusOverlayCommand.self])
    }
}

/// `gazerec stimulus timeline`: one row per session and bin.
struct StimulusTimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Per bin of stimulus time: samples, on-stimulus share, median gaze in stimulus pixels, fixations, blinks, expressions.")

    @OptionGroup var options: StimulusOptions

    @Option(help: ArgumentHelp("With --rect: the marker that ended the stimulus (default: a video's duration, else the session's end).",
                               valueName: "label"))
    var end: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Bin width in seconds.", valueName: "seconds"))
    var bin: Double = 1

    @Flag(help: "Add one row per bin over all the sessions (session \"group\").")
    var group = false

    @Option(help: "Output format.")
    var format: StimulusFormat = .csv

    func validate() throws {
        if !(bin > 0) || !bin.isFinite { throw ValidationError("--bin must be a positive number of seconds.") }
        if end?.isEmpty == true { throw ValidationError("--end is empty: give a marker label.") }
    }

    func run() throws {
        let (database, ids, study) = try options.open(end: end)
        try StimulusOptions.print(try study.timeline(database, ids: ids, binSeconds: bin, group: group, selection: try options.selection()),
                                  format: format)
    }
}

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

    @Option(help: ArgumentHelp("With --rect: the marker that ended the stimulus (default: a video's duration, else the session's end).",
                               valueName: "label"))
    var end: String?

    @Option(help: ArgumentHelp("The table: one row per session and area (participants), per participant group and area "
                               + "(groups), or per session and ordered pair of areas with the transitions between them (transitions).",
                               valueName: "table"))
    var table: AOITable = .participants

    @Option(help: "Output format.")
    var format: StimulusFormat = .csv

    func validate() throws {
        if end?.isEmpty == true { throw ValidationError("--end is empty: give a marker label.") }
    }

    func run() throws {
        let areas = try StimulusStudy.areas(path: aois)
        let (database, ids, study) = try options.open(end: end)
        try StimulusOptions.print(try study.areasOfInterest(database, ids: ids, areas: areas, kind: table.kind,
                                                            selection: try options.selection(), source: aois), format: format)
    }
}

extension ExpressionName: ExpressibleByArgument {}

/// `--table` of `stimulus aoi`.
enum AOITable: String, CaseIterable, ExpressibleByArgument {
    case participants, groups, transitions

    var kind: AOITableKind {
        switch self {
        case .participants: .participants
        case .groups: .groups
        case .transitions: .transitions
        }
    }
}

/// `gazerec stimulus highlights`: intervals most participants showed an expression while looking together.
struct StimulusHighlightsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "highlights",
        abstract: "Intervals where an expression dominated for most participants while their gaze concentrated, ranked, with a crop.",
        discussion: """
            A participant is in a run while the expression dominates their mean probabilities per 0.1 s \
            (gaps up to 0.5 s bridged) for at least --min-seconds; a highlight is an interval of at least \
            --min-seconds in which more than --majority of the participants with expression data are in \
            a run and the median spread of their gaze (median distance from its median point, per 0.1 s) \
            is at most --max-dispersion. The crop holds the central 90 % of the gaze with 2 degrees around it. \
            --render DIR cuts each highlight's crop over its interval out of the stimulus video into \
            DIR/highlight-RANK.mp4 (H.264; RANK as in the table): every clip or none, replacing the clips \
            of an earlier run as a whole (DIR may hold only such clips).
            """)

    @OptionGroup var options: StimulusOptions

    @Option(help: "The expression that must dominate.")
    var expression: ExpressionName = .happy

    @Option(parsing: .unconditional, help: ArgumentHelp("How long it must dominate, in seconds.", valueName: "seconds"))
    var minSeconds: Double = 2

    @Option(parsing: .unconditional, help: ArgumentHelp("The share of participants that must be in a run, exceeded (0 to below 1).", valueName: "share"))
    var majority: Double = 0.5

    @Option(parsing: .unconditional, help: ArgumentHelp("The largest spread of the gaze, in stimulus pixels (default: a quarter of the stimulus's shorter side).",
                               valueName: "pixels"))
    var maxDispersion: Double?

    @Option(help: ArgumentHelp("The crop's aspect (default: the stimulus's own; 9:16 for a vertical short).", valueName: "W:H"))
    var aspect: AspectRatio?

    @Option(help: ArgumentHelp("Cut each highlight's crop out of the stimulus video into this folder.", valueName: "dir"))
    var render: String?

    @Option(help: "Output format.")
    var format: StimulusFormat = .csv

    func validate() throws {
        if render?.isEmpty == true { throw ValidationError("--render is empty: give a folder.") }
        if !(minSeconds > 0) || !minSeconds.isFinite { throw ValidationError("--min-seconds must be a positive number of seconds.") }
        if !(majority >= 0 && majority < 1) { throw ValidationError("--majority must be a share from 0 up to (not including) 1.") }
        if let maxDispersion, !(maxDispersion > 0) { throw ValidationError("--max-dispersion must be a positive number of pixels.") }
    }

    func run() throws {
        var criteria = HighlightCriteria()
        criteria.expression = expression
        criteria.minimumSeconds = minSeconds
        criteria.majority = majority
        criteria.maximumDispersionPixels = maxDispersion
        criteria.cropAspect = aspect?.value
        let (database, ids, study) = try options.open()
        let (report, highlights) = try study.highlights(database, ids: ids, criteria: criteria, selection: try options.selection())
        if let render {
            for clip in try study.renderHighlights(highlights, folder: render) {
                Console.note("wrote \(clip.path) (\(clip.frames) frames)")
            }
            if highlights.isEmpty { Console.note("\(render) holds no clip: there is no highlight") }
        }
        try StimulusOptions.print(report, format: format)
    }
}

/// `gazerec stimulus overlay`: the stimulus with the sessions' gaze and a moving heatmap drawn over it.
struct StimulusOverlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overlay",
        abstract: "The stimulus as a video with each session's gaze point and a moving heatmap drawn over it.",
        discussion: """
            Each session's gaze is a dot in its own colour (the sessions' order; fixations a larger \
            disc at their centre) over a heatmap of all the sessions' gaze in the last second \
            (a Gaussian of 1 degree of visual angle, kept visible on any picture); a legend (top left) \
            gives each session's colour and label, a readout (bottom left) the stimulus time, and \
            --aois outlines the areas of interest where they are at each frame. The video has the stimulus's own size and rate; \
            an image stimulus gives a 30 fps video as long as the longest session's viewing. \
            --output ending in .mkv writes FFV1 (lossless), .mp4 H.264 (plays anywhere).
            """)

    @OptionGroup var options: StimulusOptions

    @Option(help: ArgumentHelp("With --rect: the marker that ended the stimulus (default: a video's duration, else the session's end).",
                               valueName: "label"))
    var end: String?

    @Option(help: ArgumentHelp("The video to write: .mkv (FFV1, lossless) or .mp4 (H.264).", valueName: "file"))
    var output: String

    @Option(help: ArgumentHelp("Areas of interest to draw (JSON, as for 'stimulus aoi'), keyframed ones moving.", valueName: "file"))
    var aois: String?

    func validate() throws {
        if end?.isEmpty == true { throw ValidationError("--end is empty: give a marker label.") }
        if aois?.isEmpty == true { throw ValidationError("--aois is empty: give a JSON file of areas.") }
        if VideoOutputFormat.forPath(output) == nil {
            throw ValidationError("--output must end in .mkv (FFV1, lossless) or .mp4 (H.264): \(output)")
        }
    }

    func run() throws {
        let (database, ids, study) = try options.open(end: end)
        let areas = try aois.map { try StimulusStudy.areas(path: $0) } ?? []
        let result = try study.overlay(database, ids: ids, output: output, selection: try options.selection(), areas: areas,
                                       areasSource: aois ?? "")
        StimulusOptions.note(skipped: result.skipped, excluded: result.excluded, warnings: result.warnings)
        Console.note("wrote \(output) (\(result.frames) frames, \(result.width)×\(result.height), "
                     + String(format: "%g", result.framesPerSecond) + " fps; sessions in colour order: "
                     + result.sessions.joined(separator: ", ") + ")")
    }
}
