import ArgumentParser
import Foundation
import GazeAnalysis
import GazeCore
import GazeModel
import JSONStream
import SessionFigures
import SessionStore

extension Gazerec {
    /// `gazerec plot SESSION --output FILE.svg`: a picture of where the participant looked.
    struct Plot: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw a session's heatmap, scan path and fixations as SVG or PNG (the screen to scale).",
            discussion: """
                Without --heatmap, --scanpath or --fixations, all three are drawn, clipped to the screen. \
                Fixations come from I-DT with the defaults of 'gazerec fixations'; circles are sized by \
                duration and numbered in order. The heatmap is a Gaussian kernel density of gaze time \
                (seconds per square degree, viridis, with its colour scale), σ = 1° of visual angle by \
                default, at the session's points per degree (its calibration's screen size and distance, \
                else 40). A session recorded with --expressions gets a band under the screen: what the \
                face did along the time (the most probable expression, the smile shape, the markers). An \
                --output ending in .png is rendered by rsvg-convert.
                """)

        @OptionGroup var store: ReadableStoreOptions

        @OptionGroup var interval: IntervalOptions

        @Argument(help: "The session id.")
        var id: String

        @Option(help: ArgumentHelp("The figure to write: .svg, or .png (rendered by rsvg-convert).", valueName: "file.svg|file.png"))
        var output: String

        @Option(help: ArgumentHelp("The heatmap kernel's standard deviation, degrees of visual angle.", valueName: "degrees"))
        var sigma = 1.0

        @Flag(help: "Draw the heatmap.")
        var heatmap = false

        @Flag(help: "Draw the scan path.")
        var scanpath = false

        @Flag(help: "Draw the fixations.")
        var fixations = false

        @Option(help: ArgumentHelp("An image (PNG or JPEG) of the stimulus, stretched over the screen.", valueName: "image"))
        var background: String?

        func validate() throws {
            if !output.lowercased().hasSuffix(".svg") && !output.lowercased().hasSuffix(".png") {
                throw ValidationError("--output must name an .svg or .png file.")
            }
            if !(sigma > 0 && sigma <= 10) { throw ValidationError("--sigma must be more than 0 and at most 10 degrees.") }
        }

        func run() throws {
            TemporaryFileCleanup.install()
            let database = try store.openForReading(sessions: .named([id]))
            let plot = SessionPlot(sigmaDegrees: sigma, heatmap: heatmap, scanPath: scanpath, fixations: fixations,
                                   backgroundPath: background)
            let figure = try plot.write(database, id: id, between: interval.labels, to: output)
            Console.note("wrote \(output) (\(figure.samples) samples, \(figure.fixations) fixations)"
                         + (figure.samples == 0 ? "; the session has no scan path (was it calibrated?)" : ""))
        }
    }
}
