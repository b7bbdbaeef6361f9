import ArgumentParser
import GazeModel
import StimulusAnalysis
import StimulusStudy

extension ExpressionName: ExpressibleByArgument {}

/// `W:H`, a crop's aspect.
struct AspectRatio: ExpressibleByArgument {
    var value: Double

    init?(argument: String) {
        let parts = argument.split(separator: ":").map { Double($0) }
        guard parts.count == 2, let width = parts[0], let height = parts[1], width > 0, height > 0, width.isFinite, height.isFinite
        else { return nil }
        value = width / height
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
            is at most --max-dispersion. The crop holds the central 90 % of the gaze with 2 degrees around it.
            """)

    @OptionGroup var options: StimulusOptions

    @Option(help: "The expression that must dominate.")
    var expression: ExpressionName = .happy

    @Option(help: ArgumentHelp("How long it must dominate, in seconds.", valueName: "seconds"))
    var minSeconds: Double = 2

    @Option(help: ArgumentHelp("The share of participants that must be in a run, exceeded (0 to below 1).", valueName: "share"))
    var majority: Double = 0.5

    @Option(help: ArgumentHelp("The largest spread of the gaze, in stimulus pixels (default: a quarter of the stimulus's shorter side).",
                               valueName: "pixels"))
    var maxDispersion: Double?

    @Option(help: ArgumentHelp("The crop's aspect (default: the stimulus's own; 9:16 for a vertical short).", valueName: "W:H"))
    var aspect: AspectRatio?

    @Option(help: "Output format.")
    var format: StimulusFormat = .csv

    func validate() throws {
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
        try StimulusOptions.print(try study.highlights(database, ids: ids, criteria: criteria).report, format: format)
    }
}
