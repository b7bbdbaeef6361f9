import Foundation
import GazeAnalysis
import GazeFigures
import GazeModel
import SessionExport
import SessionStore

/// Why a session's figure cannot be drawn as asked.
public enum SessionPlotError: Error, CustomStringConvertible, Equatable {
    /// The background file is not an image an SVG viewer shows (PNG, JPEG, GIF, WebP).
    case notAnImage(path: String)

    public var description: String {
        switch self {
        case .notAnImage(let path):
            return "\(path) is not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise)."
        }
    }
}

/// A stored session's gaze drawn on its screen to scale: the heatmap, the scan path and the
/// fixations (I-DT at the session's fixation scale), the expression band of a session recorded
/// with expressions, and a legend saying what was drawn and from what.
///
/// One call reads what the figure needs from the store and draws it; `write` also renders a
/// PNG (through rsvg-convert) and writes the file atomically.
public struct SessionPlot {
    /// The heatmap kernel's standard deviation, degrees of visual angle.
    public var sigmaDegrees: Double
    /// The layers to draw; none chosen draws all three.
    public var heatmap: Bool
    public var scanPath: Bool
    public var fixations: Bool
    /// An image (PNG, JPEG, GIF or WebP) of the stimulus, stretched over the screen.
    public var backgroundPath: String?

    public init(sigmaDegrees: Double = 1, heatmap: Bool = false, scanPath: Bool = false, fixations: Bool = false,
                backgroundPath: String? = nil) {
        self.sigmaDegrees = sigmaDegrees
        self.heatmap = heatmap
        self.scanPath = scanPath
        self.fixations = fixations
        self.backgroundPath = backgroundPath
    }

    /// A drawn figure, with what it holds.
    public struct Figure: Sendable {
        /// The SVG document.
        public var svg: String
        /// Gaze samples drawn.
        public var samples: Int
        /// Fixations found in them.
        public var fixations: Int
    }

    /// Draws session `id` (or, with `between` labels, its marker interval: `SessionDatabase.scanPath(id:between:)`).
    public func figure(_ database: SessionDatabase, id: String, between labels: [String] = []) throws -> Figure {
        let summary = try database.summary(id: id)
        let (samples, storedWidth, storedHeight) = try database.scanPath(id: id, between: labels)
        let (width, height) = GazeSample.screen(of: samples, width: storedWidth, height: storedHeight)
        let scale = summary.header.fixationScale()
        let found = scale.defaultDetector.detect(samples).fixations
        let all = !heatmap && !scanPath && !fixations
        var plot = ScanPathPlot(screenWidth: width > 0 ? width : 1920, screenHeight: height > 0 ? height : 1080)
        plot.pointsPerDegree = scale.pointsPerDegree
        plot.kernelSigmaDegrees = sigmaDegrees
        plot.heatmap = all || heatmap
        plot.scanPath = all || scanPath
        plot.fixations = all || fixations
        plot.backgroundHref = try backgroundPath.map(Self.background)
        plot.legend = legend(summary, samples: samples, width: width, height: height, fixations: found.count, between: labels,
                             heatmapPointsPerDegree: plot.heatmap ? scale.pointsPerDegree : nil)
        plot.expressionBand = try Self.expressionBand(database, summary.header, samples: samples, interval: !labels.isEmpty)
        return Figure(svg: plot.svg(samples: samples, fixations: found), samples: samples.count, fixations: found.count)
    }

    /// Draws the figure and writes it to `path`: an SVG file, or, for a name ending in `.png`, a PNG
    /// rendered by rsvg-convert.
    public func write(_ database: SessionDatabase, id: String, between labels: [String] = [], to path: String) throws -> Figure {
        let figure = try figure(database, id: id, between: labels)
        let bytes = path.lowercased().hasSuffix(".png") ? [UInt8](try SVGRasterizer.png(figure.svg)) : Array(figure.svg.utf8)
        try OutputFile.writeAtomically(to: path) { sink in
            try bytes.withUnsafeBytes { try sink.write($0) }
        }
        return figure
    }

    /// Where a session's points per degree come from, in words (the figure's legend).
    public static func scaleSource(_ header: SessionHeader) -> String {
        switch header.fixationScale().source {
        case .given: return "the screen size and distance given"
        case .calibration: return "the viewing geometry of calibration \(header.gazerecExtension?.calibration?.id ?? "")"
        case .assumed: return "40 points per degree (no screen size and distance known)"
        }
    }

    /// The legend: the session, what was drawn from which samples, the fixations and, when drawn, the heatmap's kernel.
    private func legend(_ summary: SessionSummary, samples: [GazeSample], width: Double, height: Double, fixations: Int,
                        between labels: [String], heatmapPointsPerDegree: Double?) -> [String] {
        let header = summary.header
        var legend = [
            "Session \(header.id) · \(header.appID)",
            "\(TextFormat.isoTime(header.beginTimeSeconds)) · \(summary.durationSeconds.map { TextFormat.fixed($0, 1) } ?? "-") s"
                + " · \(samples.count) gaze samples · screen \(Int(width))×\(Int(height)) points",
            "\(fixations) fixations (I-DT, 1.5°, 80 ms), circles sized by duration, numbered in order",
        ]
        if !labels.isEmpty, let first = samples.first, let last = samples.last {
            let start = first.timestampSeconds - header.beginTimeSeconds
            let end = last.timestampSeconds - header.beginTimeSeconds
            legend.insert("Interval: marker '\(labels[0])' to " + (labels.count > 1 ? "'\(labels[1])'" : "the next marker")
                          + " (\(TextFormat.fixed(start, 1))–\(TextFormat.fixed(end, 1)) s into the session)", at: 1)
        }
        if let perDegree = heatmapPointsPerDegree {
            legend.append("Heatmap: gaze time per square degree, Gaussian kernel σ = \(TextFormat.fixed(sigmaDegrees, 2))° "
                          + "= \(TextFormat.fixed(sigmaDegrees * perDegree, 1)) points; degrees from \(Self.scaleSource(header))")
        }
        return legend
    }

    /// The background file as a data URL.
    private static func background(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoreError.io(action: "read", path: path, reason: "no such file or not readable")
        }
        guard let href = BackgroundImage.href(data) else { throw SessionPlotError.notAnImage(path: path) }
        return href
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
}
