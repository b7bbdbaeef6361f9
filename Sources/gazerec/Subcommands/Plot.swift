import ArgumentParser
import Foundation
import GazeCore
import GazeModel
import JSONStream
import SessionStore

extension Gazerec {
    /// `gazerec plot SESSION --output FILE.svg`: a picture of where the participant looked.
    struct Plot: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw a session's heatmap, scan path and fixations as SVG (the screen to scale).",
            discussion: """
                Without --heatmap, --scanpath or --fixations, all three are drawn. Fixations come from \
                I-DT with the defaults of 'gazerec fixations'; circles are sized by duration and numbered \
                in order. The heatmap is a Gaussian kernel density (σ = 40 points ≈ 1°).
                """)

        @OptionGroup var store: StoreOptions

        @OptionGroup var interval: IntervalOptions

        @Argument(help: "The session id.")
        var id: String

        @Option(help: ArgumentHelp("The SVG file to write.", valueName: "file.svg"))
        var output: String

        @Flag(help: "Draw the heatmap.")
        var heatmap = false

        @Flag(help: "Draw the scan path.")
        var scanpath = false

        @Flag(help: "Draw the fixations.")
        var fixations = false

        @Option(help: ArgumentHelp("An image (PNG or JPEG) of the stimulus, stretched over the screen.", valueName: "image"))
        var background: String?

        func validate() throws {
            if !output.lowercased().hasSuffix(".svg") { throw ValidationError("--output must name an .svg file.") }
        }

        /// The screen as the samples saw it: the iOS package stores the portrait size, and landscape
        /// samples (orientation 3 or 4) are on the screen turned sideways.
        static func orientedScreen(_ samples: [GazeSample], _ width: Double, _ height: Double) -> (Double, Double) {
            let landscape = samples.filter { $0.orientation == 3 || $0.orientation == 4 }.count * 2 > samples.count
            return landscape == (width < height) ? (height, width) : (width, height)
        }

        func run() throws {
            TemporaryFileCleanup.install()
            let database = try store.openForReading(sessions: .named([id]))
            let summary = try database.summary(id: id)
            let (samples, storedWidth, storedHeight) = try SessionViewing.scanPath(database, id: id, between: interval.labels)
            let (width, height) = Self.orientedScreen(samples, storedWidth, storedHeight)
            let points = samples
            let found = SessionViewing.detector(summary.header, screenWidth: storedWidth).detect(points).fixations
            let all = !heatmap && !scanpath && !fixations
            var plot = ScanPathPlot(screenWidth: width > 0 ? width : 1920, screenHeight: height > 0 ? height : 1080)
            plot.heatmap = all || heatmap
            plot.scanPath = all || scanpath
            plot.fixations = all || fixations
            if let background {
                guard let data = FileManager.default.contents(atPath: background) else {
                    throw StoreError.io(action: "read", path: background, reason: "no such file or not readable")
                }
                guard let type = Gazerec.imageType(data) else {
                    throw UsageError(message: "--background \(background) is not a PNG, JPEG, GIF or WebP image (its first "
                                     + "bytes say otherwise). Give the stimulus as an image file.")
                }
                plot.backgroundHref = "data:\(type);base64," + data.base64EncodedString()
            }
            plot.legend = [
                "Session \(summary.header.id) · \(summary.header.appID)",
                "\(Formatting.isoTime(summary.header.beginTimeSeconds)) · \(summary.durationSeconds.map { Formatting.fixed($0, 1) } ?? "-") s"
                    + " · \(samples.count) gaze samples · screen \(Int(width))×\(Int(height)) points",
                "\(found.count) fixations (I-DT, 1.5°, 80 ms), circles sized by duration, numbered in order",
            ]
            let svg = plot.svg(samples: points, fixations: found)
            try SessionDatabase.writeAtomically(to: output) { sink in
                try Array(svg.utf8).withUnsafeBytes { try sink.write($0) }
            }
            Console.note("wrote \(output) (\(samples.count) samples, \(found.count) fixations)"
                         + (samples.isEmpty ? "; the session has no scan path (was it calibrated?)" : ""))
        }
    }

    /// The MIME type of an image an SVG viewer can show, from its first bytes (not its name).
    static func imageType(_ data: Data) -> String? {
        let head = [UInt8](data.prefix(12))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF8".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        return nil

    }
}
