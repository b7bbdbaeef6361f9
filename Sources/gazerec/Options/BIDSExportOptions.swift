import ArgumentParser
import GazeModel

/// Rules that derive a session's BIDS subject label from the session (`export --format bids --subject-from`).
enum BIDSSubjectRule: String, CaseIterable, ExpressibleByArgument {
    /// The session's app id with everything but ASCII letters and digits left out.
    case appID = "app-id"
}

/// The options of `export --format bids`: the run's labels and the screen's size and distance.
struct BIDSExportOptions: ParsableArguments {
    @Option(help: ArgumentHelp("With --format bids: the BIDS subject label (ASCII letters and digits) of every session.",
                               valueName: "label"))
    var subject: String?

    @Option(help: ArgumentHelp("With --format bids: derive each session's subject label instead: 'app-id' (its app id "
                               + "with everything but ASCII letters and digits left out).", valueName: "rule"))
    var subjectFrom: BIDSSubjectRule?

    @Option(help: ArgumentHelp("With --format bids: the BIDS session label (ses-<label>), if any.", valueName: "label"))
    var sessionLabel: String?

    @Option(help: ArgumentHelp("With --format bids: the BIDS task label (required).", valueName: "label"))
    var task: String?

    @Option(help: ArgumentHelp("With --format bids: the physical screen size in millimetres (WxH), for every session "
                               + "(else its calibration's).", valueName: "WxH"), transform: MillimetreSize.parse)
    var screenSizeMm: MillimetreSize?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --format bids: the eye-to-screen distance in millimetres.", valueName: "mm"))
    var distanceMm: Double?

    @Flag(help: ArgumentHelp("With --format bids: export a session already in the dataset again, as a new run (else "
                             + "it is skipped and its run named)."))
    var again = false

    /// Whether any of these options was given (they apply to BIDS only).
    var anyGiven: Bool {
        subject != nil || subjectFrom != nil || sessionLabel != nil || task != nil || screenSizeMm != nil || distanceMm != nil
            || again
    }

    /// The screen's size and distance given, if any.
    var viewing: ViewingDistances? {
        guard let screenSizeMm, let distanceMm else { return nil }
        return ViewingDistances(screenWidthMillimetres: screenSizeMm.width, screenHeightMillimetres: screenSizeMm.height,
                                distanceMillimetres: distanceMm)
    }
}
