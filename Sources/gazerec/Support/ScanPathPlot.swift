#if canImport(Glibc)
import GazeAnalysis
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GazeCore
import GazeModel

/// Draws a session's gaze as an SVG picture: the screen to scale, a heatmap (Gaussian kernel
/// density), the scan path, and numbered fixation circles sized by duration joined by saccades.
struct ScanPathPlot: Sendable {
    public var screenWidth: Double
    public var screenHeight: Double
    public var heatmap = true
    public var scanPath = true
    public var fixations = true
    /// Kernel width of the heatmap, screen points (1° at the assumed 40 points per degree).
    public var kernelSigmaPoints = 40.0
    /// A background image (data: URI or path) stretched over the screen rectangle.
    public var backgroundHref: String?
    /// Lines of the legend under the picture.
    public var legend: [String] = []

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

    public func svg(samples: [GazeSample], fixations found: [Fixation]) -> String {
        let width = screenWidth * scale + 2 * Self.margin
        let legendHeight = Double(legend.count) * 18 + 12
        let height = screenHeight * scale + 2 * Self.margin + legendHeight
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" \
            width="\(f(width))" height="\(f(height))" viewBox="0 0 \(f(width)) \(f(height))" font-family="sans-serif">
            <rect x="0" y="0" width="\(f(width))" height="\(f(height))" fill="#ffffff"/>

            """
        let (left, top) = position(x: 0, y: 0)
        let screenW = screenWidth * scale, screenH = screenHeight * scale
        out += "<g id=\"screen\">\n"
        if let backgroundHref {
            out += "<image x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(screenW))\" height=\"\(f(screenH))\" "
                + "preserveAspectRatio=\"none\" xlink:href=\"\(Self.escape(backgroundHref))\"/>\n"
        }
        out += "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(screenW))\" height=\"\(f(screenH))\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1.5\"/>\n</g>\n"
        if heatmap, !samples.isEmpty { out += heatmapLayer(samples) }
        if scanPath, samples.count > 1 {
            let points = samples.map { position(x: $0.x, y: $0.y) }.map { "\(f($0.0)),\(f($0.1))" }.joined(separator: " ")
            out += "<g id=\"scanpath\"><polyline points=\"\(points)\" fill=\"none\" stroke=\"#1f77b4\" stroke-opacity=\"0.45\" stroke-width=\"1\"/></g>\n"
        }
        if fixations, !found.isEmpty {
            out += "<g id=\"fixations\">\n"
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
            out += "</g>\n"
        }
        out += "<g id=\"legend\" font-size=\"13\" fill=\"#222222\">\n"
        for (index, line) in legend.enumerated() {
            out += "<text x=\"\(f(Self.margin))\" y=\"\(f(screenH + 2 * Self.margin + 14 + Double(index) * 18))\">\(Self.escape(line))</text>\n"
        }
        out += "</g>\n</svg>\n"
        return out
    }

    /// Kernel density on a grid of 8-px cells, drawn where it exceeds 4 % of its peak.
    private func heatmapLayer(_ samples: [GazeSample]) -> String {
        let cell = 8.0
        let columns = Int((screenWidth * scale / cell).rounded(.up)), rows = Int((screenHeight * scale / cell).rounded(.up))
        guard columns > 0, rows > 0 else { return "" }
        var density = [Double](repeating: 0, count: columns * rows)
        let sigma = kernelSigmaPoints * scale
        let reach = Int((3 * sigma / cell).rounded(.up))
        for sample in samples {
            let px = sample.x * scale, py = sample.y * scale
            let cx = Int(px / cell), cy = Int(py / cell)
            // Samples off the screen (gaze estimates leave it) add only to the cells they reach.
            let rowLow = Swift.max(0, cy - reach), rowHigh = Swift.min(rows - 1, cy + reach)
            let columnLow = Swift.max(0, cx - reach), columnHigh = Swift.min(columns - 1, cx + reach)
            guard rowLow <= rowHigh, columnLow <= columnHigh else { continue }
            for row in rowLow...rowHigh {
                for column in columnLow...columnHigh {
                    let dx = (Double(column) + 0.5) * cell - px, dy = (Double(row) + 0.5) * cell - py
                    density[row * columns + column] += exp(-(dx * dx + dy * dy) / (2 * sigma * sigma))
                }
            }
        }
        guard let peak = density.max(), peak > 0 else { return "" }
        var out = "<g id=\"heatmap\">\n"
        for row in 0..<rows {
            for column in 0..<columns {
                let level = density[row * columns + column] / peak
                guard level > 0.04 else { continue }
                let (x, y) = (Self.margin + Double(column) * cell, Self.margin + Double(row) * cell)
                out += "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"8\" height=\"8\" fill=\"\(Self.colour(level))\" fill-opacity=\"\(f(0.15 + 0.5 * level))\"/>\n"
            }
        }
        return out + "</g>\n"
    }

    /// Blue → green → yellow → red.
    static func colour(_ level: Double) -> String {
        let stops: [(Double, (Double, Double, Double))] = [(0, (49, 54, 149)), (0.35, (69, 174, 99)), (0.7, (254, 224, 60)), (1, (215, 25, 28))]
        var index = 0
        while index < stops.count - 2 && level > stops[index + 1].0 { index += 1 }
        let (l0, c0) = stops[index], (l1, c1) = stops[index + 1]
        let t = Swift.max(0, Swift.min(1, (level - l0) / (l1 - l0)))
        func channel(_ a: Double, _ b: Double) -> Int { Int((a + (b - a) * t).rounded()) }
        let hex = [channel(c0.0, c1.0), channel(c0.1, c1.1), channel(c0.2, c1.2)].map { value -> String in
            let digits = String(value, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }
        return "#" + hex.joined()
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
