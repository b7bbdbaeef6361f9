import ArgumentParser
import Recorder
import SessionStore

extension Gazerec {
    /// `gazerec recalibrate SESSION --calibration ID`: a new scan path from the stored eye features.
    struct Recalibrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Recompute a recorded session's scanPath from its stored eye features with a calibration.",
            discussion: """
                Replaces the session's scan path (in one transaction: the old one stays if anything fails) \
                with the gaze that the calibration maps its per-frame pupils and head pose to, exactly as a \
                live recording with that calibration would have. The session's screen size becomes the \
                calibration's (its points are in that screen's coordinates).
                """)

        @OptionGroup var store: StoreOptions

        @Argument(help: "The session id.")
        var id: String

        @Option(help: ArgumentHelp("The calibration to apply: an id or 'latest'.", valueName: "id"))
        var calibration: String

        @OptionGroup(title: "Smoothing (default: as the session was recorded)") var smoothingOptions: SmoothingOptions

        func run() throws {
            guard let database = try store.openExisting() else {
                throw StoreError.unknownSession(id: id, databasePath: store.resolvedPath)
            }
            let result = try Recalibration.run(sessionID: id, calibrationID: calibration, smoothing: smoothingOptions.asked,
                                               database: database)
            let record = result.calibration
            if let previous = result.previousScreen {
                Console.note("screen size \(Int(previous.width))x\(Int(previous.height)) becomes the calibration's "
                             + "\(Int(record.screenWidth))x\(Int(record.screenHeight))"
                             + " (the presented stimuli's rectangles are scaled with it)")
            }
            Console.note("session \(result.sessionID): \(result.gazeSamples) gaze samples from \(result.frames) frames "
                         + "with calibration \(record.id)\(CalibrationReport.accuracyText(record))")
            Console.output(result.sessionID + "\n")
        }
    }
}
