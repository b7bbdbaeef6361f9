import ArgumentParser
import StimulusStudy

/// `gazerec stimulus timeline`: one row per session and bin.
struct StimulusTimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Per bin of stimulus time: samples, on-stimulus share, median gaze in stimulus pixels, fixations, blinks, expressions.")

    @OptionGroup var options: StimulusOptions

    @Option(help: ArgumentHelp("The marker that ended the stimulus (default: a video's duration, else the session's end).",
                               valueName: "label"))
    var end: String?

    @Option(help: ArgumentHelp("Bin width in seconds.", valueName: "seconds"))
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
        try StimulusOptions.print(try study.timeline(database, ids: ids, binSeconds: bin, group: group), format: format)
    }
}
