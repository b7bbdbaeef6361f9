import ArgumentParser
import Foundation
import GazeCalibration
import GazeModel
import GazeVision
import Recorder
import SessionStore

extension Gazerec {
    /// `gazerec reanalyze SESSION`: today's pipeline over the video a recording kept.
    struct Reanalyze: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the current vision pipeline over a session's saved video and replace its per-frame data.",
            discussion: """
                For sessions recorded with 'start --save-video': every frame of the video goes through the \
                pipeline again, stamped with its stored frame's time, and the session's frames, scanPath, \
                blend shapes and blink events are replaced in one transaction (the old data stays if \
                anything fails). Markers stay. Gaze uses the session's calibration (or --calibration); \
                the extension records when, with which version and video ("gazerec"."reanalysis").
                """)

        @OptionGroup var store: StoreOptions

        @Argument(help: "The session id.")
        var id: String

        @Option(help: ArgumentHelp("The video to analyse (default: the one the recording saved).", valueName: "path"))
        var video: String?

        @Option(help: ArgumentHelp("Calibration for gaze: an id, 'latest', or 'none' (default: the session's own).",
                                   valueName: "id"))
        var calibration: String?

        @OptionGroup var vision: VisionOptions

        @OptionGroup var expressionOptions: ExpressionOptions

        func validate() throws {
            try vision.validate()
        }

        func run() throws {
            // Ctrl-C, SIGTERM and SIGHUP remove the scratch folder before the process ends; one a
            // kill -9 left behind goes now.
            TemporaryFileCleanup.install()
            for path in Reanalysis.sweepStaleScratchFolders() {
                Console.note("removed \(path), left by a re-analysis that was killed")
            }
            guard let database = try store.openExisting() else {
                throw StoreError.unknownSession(id: id, databasePath: store.resolvedPath)
            }
            try vision.checkModelExists()
            let expressions = try expressionOptions.checkedFiles()
            var request: Reanalysis.Request
            do {
                request = try Reanalysis.request(sessionID: id, database: database, videoPath: video, calibration: calibration,
                                                 modelPath: LandmarkModel.resolvePath(vision.model),
                                                 focalLengthPixels: vision.focalLength)
            } catch let unavailable as Reanalysis.OwnCalibrationUnavailable {
                let error = unavailable.error
                let text = if case .unknownCalibration = error { ErrorHints.message(for: error) } else { error.description }
                throw UsageError(message: "\(text) The session was mapped with it; give --calibration ID (or none) to "
                                 + "re-analyse it with another.")
            }
            request.faceFinding = try vision.faceFinding(live: false)
            request.expressions = expressions
            let result = try Reanalysis.run(request, database: database)
            let facePercent = Formatting.fixed(100 * Double(result.framesWithFace) / Double(max(result.frames, 1)), 1)
            Console.note("session \(request.sessionID): \(result.frames) frames re-analysed from \(request.videoPath) (face in \(facePercent) %"
                         + (request.calibration == nil ? "" : ", \(result.gazeSamples) gaze samples") + ", \(EyeFigures.text(result.eyes)))"
                         + (result.framesNotInVideo > 0 ? "; \(result.framesNotInVideo) frames the video lacked (left out while "
                            + "recording) are no longer in the session" : ""))
            Console.output(request.sessionID + "\n")
        }
    }
}

extension ReanalysisError: RuntimeFailure {}
