import ArgumentParser
import Foundation
import GazeAnalysis
import GazeCore
import GazeFigures
import GazeModel
import JSONStream
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
            let summary = try database.summary(id: id)
            let (samples, storedWidth, storedHeight) = try SessionViewing.scanPath(database, id: id, between: interval.labels)
            let (width, height) = GazeSample.screen(of: samples, width: storedWidth, height: storedHeight)
            let points = samples
            let found = summary.header.fixationScale().defaultDetector.detect(points).fixations
            let all = !heatmap && !scanpath && !fixations
            var plot = ScanPathPlot(screenWidth: width > 0 ? width : 1920, screenHeight: height > 0 ? height : 1080)
            let perDegree = SessionViewing.pointsPerDegree(summary.header)
            plot.pointsPerDegree = perDegree.value
            plot.kernelSigmaDegrees = sigma
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
            if !interval.labels.isEmpty, let first = samples.first, let last = samples.last {
                let start = first.timestampSeconds - summary.header.beginTimeSeconds
                let end = last.timestampSeconds - summary.header.beginTimeSeconds
                plot.legend.insert("Interval: marker '\(interval.labels[0])' to " + (interval.labels.count > 1 ? "'\(interval.labels[1])'" : "the next marker")
                                   + " (\(Formatting.fixed(start, 1))–\(Formatting.fixed(end, 1)) s into the session)", at: 1)
            }
            if plot.heatmap {
                plot.legend.append("Heatmap: gaze time per square degree, Gaussian kernel σ = \(Formatting.fixed(sigma, 2))° "
                                   + "= \(Formatting.fixed(sigma * perDegree.value, 1)) points; degrees from \(perDegree.source)")
            }
            plot.expressionBand = try Gazerec.expressionBand(database, summary.header, samples: samples,
                                                          interval: !interval.labels.isEmpty)
            let svg = plot.svg(samples: points, fixations: found)
            let bytes = output.lowercased().hasSuffix(".png") ? [UInt8](try SVGRasterizer.png(svg)) : Array(svg.utf8)
            try SessionDatabase.writeAtomically(to: output) { sink in
                try bytes.withUnsafeBytes { try sink.write($0) }
            }
            Console.note("wrote \(output) (\(samples.count) samples, \(found.count) fixations)"
                         + (samples.isEmpty ? "; the session has no scan path (was it calibrated?)" : ""))
        }
    }

    /// What the face did over the plotted time (the session, or the interval the gaze samples span),
    /// nil for a session without expressions.
    static func expressionBand(_ database: SessionDatabase, _ header: SessionHeader, samples: [GazeSample], interval: Bool)
        throws -> ExpressionBand? {
        let expressions = try database.expressionSamples(id: header.id)
        guard !expressions.isEmpty else { return nil }
        let start = interval ? samples.first?.timestampSeconds ?? header.beginTimeSeconds : header.beginTimeSeconds
        let end = interval ? samples.last?.timestampSeconds ?? start
            : header.endTimeSeconds ?? expressions.last!.timestampSeconds
        let inside = { (time: Double) in time >= start && time <= end }
        return ExpressionBand(startSeconds: start, endSeconds: end,
                              samples: expressions.filter { inside($0.timestampSeconds) },
                              smile: try database.smile(id: header.id).filter { inside($0.timestampSeconds) },
                              markers: try database.markers(id: header.id))
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
