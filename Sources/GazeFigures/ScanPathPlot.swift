import Foundation
import GazeAnalysis
import GazeModel

/// Draws a session's gaze as an SVG picture: the screen to scale, a heatmap (Gaussian kernel
/// density in seconds per square degree, viridis, with its colour scale), the scan path, and
/// numbered fixation circles sized by duration joined by saccades, all clipped to the screen.
public struct ScanPathPlot: Sendable {
    public var screenWidth: Double
    public var screenHeight: Double
    public var heatmap = true
    public var scanPath = true
    public var fixations = true
    /// Screen points per degree of visual angle (the session's viewing geometry, or 40 assumed).
    public var pointsPerDegree = ScreenGeometry.assumedPointsPerDegree
    /// The heatmap kernel's standard deviation, degrees of visual angle.
    public var kernelSigmaDegrees = 1.0
    /// A background image (data: URI or path) stretched over the screen rectangle.
    public var backgroundHref: String?
    /// Lines of the legend under the picture.
    public var legend: [String] = []
    /// What the face did along the time, drawn under the screen (a session with expressions).
    public var expressionBand: ExpressionBand?

    public init(screenWidth: Double, screenHeight: Double) {
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
    }

    /// Picture scale: the screen drawn at most 1200 px wide or 900 px high.
    public var scale: Double { Swift.min(1200 / screenWidth, 900 / screenHeight, 1) }
    static let margin = 20.0

    /// The picture's pixel position of a screen point.
    public func position(x: Double, y: Double) -> (Double, Double) {
        (Self.margin + x * scale, Self.margin + y * scale)
    }

    /// The fixation circle's radius in picture pixels: 6 px + 14 px per √(duration / 250 ms).
    public static func radius(durationSeconds: Double) -> Double { 6 + 14 * (Swift.max(durationSeconds, 0) / 0.25).squareRoot() }

    /// The width the colour scale takes right of the screen, picture pixels.
    static let scaleBarWidth = 110.0

    /// The heatmap's density, when it is drawn and there are samples.
    public func density(_ samples: [GazeSample]) -> GazeDensity? {
        guard heatmap, !samples.isEmpty else { return nil }
        let cell = Swift.max(2, screenWidth / 320)
        return GazeDensity(samples: samples, screenWidth: screenWidth, screenHeight: screenHeight,
                           pointsPerDegree: pointsPerDegree, sigmaDegrees: kernelSigmaDegrees, cellPoints: cell)
    }

    public func svg(samples: [GazeSample], fixations found: [Fixation]) -> String {
        let density = density(samples)
        let screenW = screenWidth * scale, screenH = screenHeight * scale
        let width = screenW + 2 * Self.margin + (density != nil ? Self.scaleBarWidth : 0)
        let legendHeight = Double(legend.count) * 18 + 12
        let bandHeight = expressionBand == nil ? 0 : ExpressionBand.height
        let height = screenH + 2 * Self.margin + bandHeight + legendHeight
        let (left, top) = position(x: 0, y: 0)
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" \
            width="\(f(width))" height="\(f(height))" viewBox="0 0 \(f(width)) \(f(height))" font-family="sans-serif">
            <rect x="0" y="0" width="\(f(width))" height="\(f(height))" fill="#ffffff"/>
            <defs><clipPath id="screen-clip"><rect x="\(f(left))" y="\(f(top))" width="\(f(screenW))" height="\(f(screenH))"/></clipPath></defs>

            """
        out += screenLayer()
        out += "<g id=\"gaze\" clip-path=\"url(#screen-clip)\">\n"
        if let density { out += heatmapLayer(density) }
        out += scanPathLayer(samples) + fixationLayer(found) + "</g>\n"
        if let density { out += scaleBar(peak: density.peak) }
        if let expressionBand { out += expressionBand.svg(x: left, y: top + screenH + Self.margin, width: screenW) }
        out += "<g id=\"legend\" font-size=\"13\" fill=\"#222222\">\n"
        for (index, line) in legend.enumerated() {
            out += "<text x=\"\(f(Self.margin))\" y=\"\(f(screenH + 2 * Self.margin + bandHeight + 14 + Double(index) * 18))\">\(Self.escape(line))</text>\n"
        }
        out += "</g>\n</svg>\n"
        return out
    }

    /// The stimulus (when given) and the screen's outline.
    private func screenLayer() -> String {
        let (left, top) = position(x: 0, y: 0)
        let screenW = screenWidth * scale, screenH = screenHeight * scale
        var out = "<g id=\"screen\">\n"
        if let backgroundHref {
            out += "<image x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(screenW))\" height=\"\(f(screenH))\" "
                + "preserveAspectRatio=\"none\" xlink:href=\"\(Self.escape(backgroundHref))\"/>\n"
        }
        return out + "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(screenW))\" height=\"\(f(screenH))\" fill=\"none\" "
            + "stroke=\"#333333\" stroke-width=\"1.5\"/>\n</g>\n"
    }

    private func scanPathLayer(_ samples: [GazeSample]) -> String {
        guard scanPath, samples.count > 1 else { return "" }
        let points = samples.map { position(x: $0.x, y: $0.y) }.map { "\(f($0.0)),\(f($0.1))" }.joined(separator: " ")
        return "<g id=\"scanpath\"><polyline points=\"\(points)\" fill=\"none\" stroke=\"#1f77b4\" stroke-opacity=\"0.45\" "
            + "stroke-width=\"1\"/></g>\n"
    }

    private func fixationLayer(_ found: [Fixation]) -> String {
        guard fixations, !found.isEmpty else { return "" }
        var out = "<g id=\"fixations\">\n"
        let centres = found.map { position(x: $0.x, y: $0.y) }
        if centres.count > 1 {
            let line = centres.map { "\(f($0.0)),\(f($0.1))" }.joined(separator: " ")
            out += "<polyline points=\"\(line)\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" stroke-opacity=\"0.8\"/>\n"
        }
        for (index, fixation) in found.enumerated() {
            let (cx, cy) = centres[index]
            let r = Self.radius(durationSeconds: fixation.durationSeconds)
            out += "<circle cx=\"\(f(cx))\" cy=\"\(f(cy))\" r=\"\(f(r))\" fill=\"#d62728\" fill-opacity=\"0.55\" stroke=\"#7f0000\" stroke-width=\"1\"/>\n"
            out += "<text x=\"\(f(cx))\" y=\"\(f(cy + 4))\" font-size=\"11\" text-anchor=\"middle\" fill=\"#ffffff\">\(index + 1)</text>\n"
        }
        return out + "</g>\n"
    }

    /// The density as a raster over the screen, smoothed by the viewer's interpolation.
    private func heatmapLayer(_ density: GazeDensity) -> String {
        let (left, top) = position(x: 0, y: 0)
        let png = Data(density.image(scaleMaximum: density.peak).bytes).base64EncodedString()
        let width = Double(density.columns) * density.cellPoints * scale, height = Double(density.rows) * density.cellPoints * scale
        return "<g id=\"heatmap\"><image x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(width))\" height=\"\(f(height))\" "
            + "preserveAspectRatio=\"none\" style=\"image-rendering:optimizeQuality\" xlink:href=\"data:image/png;base64,\(png)\"/></g>\n"
    }

    /// The colour scale right of the screen: viridis from 0 to the peak density, with its unit.
    private func scaleBar(peak: Double) -> String {
        let screenW = screenWidth * scale, screenH = screenHeight * scale
        let x = Self.margin + screenW + 24, top = Self.margin + 20, height = Swift.max(120, screenH - 40)
        var out = "<g id=\"colour-scale\" font-size=\"11\" fill=\"#222222\">\n<defs><linearGradient id=\"density-scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">"
        for step in 0...10 {
            let level = Double(step) / 10
            out += "<stop offset=\"\(f(level))\" stop-color=\"\(ColourMap.hex(level))\"/>"
        }
        out += "</linearGradient></defs>\n"
        out += "<rect x=\"\(f(x))\" y=\"\(f(top))\" width=\"16\" height=\"\(f(height))\" fill=\"url(#density-scale)\" stroke=\"#333333\" stroke-width=\"0.5\"/>\n"
        for step in 0...4 {
            let share = Double(step) / 4
            let y = top + height * (1 - share)
            out += "<line x1=\"\(f(x + 16))\" y1=\"\(f(y))\" x2=\"\(f(x + 20))\" y2=\"\(f(y))\" stroke=\"#333333\" stroke-width=\"0.5\"/>"
            out += "<text x=\"\(f(x + 23))\" y=\"\(f(y + 4))\">\(Self.tick(peak * share))</text>\n"
        }
        out += "<text x=\"\(f(x - 4))\" y=\"\(f(top - 8))\">gaze s/deg²</text>\n"
        return out + "</g>\n"
    }

    /// A scale label with three significant digits, trailing zeros dropped.
    static func tick(_ value: Double) -> String {
        guard value > 0 else { return "0" }
        let digits = Swift.max(0, 2 - Int(log10(value).rounded(.down)))
        var text = String(format: "%.\(digits)f", value)
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    private func f(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
