import Foundation
import GazeModel

/// A band under the scan path showing what the face did along the session's time: each stretch
/// of frames coloured by the most probable expression (more opaque the surer the model), the
/// smile shape as a line over it (0 at the band's foot, 1 at its top), and the markers as ticks
/// with their labels; a key of the colours under it.
public struct ExpressionBand: Sendable {
    /// The time span drawn, Unix seconds (the session's, or the plotted interval's).
    public var startSeconds: Double
    public var endSeconds: Double
    /// The expression samples in time order.
    public var samples: [ExpressionSample]
    /// The smile (the mean of `mouthSmile_L` and `_R`, 0…1) at frame times, in time order.
    public var smile: [(timestampSeconds: Double, value: Double)]
    public var markers: [Marker]

    public init(startSeconds: Double, endSeconds: Double, samples: [ExpressionSample],
                smile: [(timestampSeconds: Double, value: Double)] = [], markers: [Marker] = []) {
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.samples = samples
        self.smile = smile
        self.markers = markers
    }

    /// Picture pixels the band takes: the band, two rows of marker labels and the colour key.
    public static let height = 98.0
    /// Label rows under the band; a label with no room in either is shortened to the room there is.
    static let labelRows = 2
    /// Pixels of one character of the 11 px labels (an upper bound for the sans-serif rsvg draws).
    static let characterWidth = 6.5
    static let bandHeight = 36.0
    /// A stretch longer than this between samples (no face) is left blank.
    static let gapSeconds = 0.5

    /// Each expression's colour (a qualitative palette that tells the seven apart).
    public static func colour(_ name: ExpressionName) -> String {
        switch name {
        case .neutral: "#9e9e9e"
        case .happy: "#f2b701"
        case .surprise: "#3969ac"
        case .sad: "#11a579"
        case .angry: "#e73f74"
        case .disgust: "#7f3c8d"
        case .fear: "#e68310"
        }
    }

    /// The band's SVG group, its top-left corner at (`x`, `y`), `width` pixels wide.
    public func svg(x: Double, y: Double, width: Double) -> String {
        let span = Swift.max(endSeconds - startSeconds, 1e-9)
        func px(_ time: Double) -> Double { x + width * Swift.max(0, Swift.min(1, (time - startSeconds) / span)) }
        var out = "<g id=\"expressions\" font-size=\"11\" fill=\"#222222\">\n"
        out += "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(width))\" height=\"\(f(Self.bandHeight))\" fill=\"#f4f4f4\" stroke=\"#333333\" stroke-width=\"0.5\"/>\n"
        for run in runs() {
            out += "<rect x=\"\(f(px(run.start)))\" y=\"\(f(y))\" width=\"\(f(Swift.max(px(run.end) - px(run.start), 0.5)))\" "
                + "height=\"\(f(Self.bandHeight))\" fill=\"\(Self.colour(run.name))\" fill-opacity=\"\(f(0.3 + 0.7 * run.meanProbability))\"/>\n"
        }
        if smile.count > 1 {
            let points = smile.map { "\(f(px($0.timestampSeconds))),\(f(y + Self.bandHeight * (1 - Swift.max(0, Swift.min(1, $0.value)))))" }
            out += "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"#000000\" stroke-width=\"1\"/>\n"
        }
        let shown = markers.filter { $0.timestampSeconds >= startSeconds && $0.timestampSeconds <= endSeconds }
        let labels = Self.layLabels(shown.map { (px($0.timestampSeconds), $0.label) })
        for (marker, label) in zip(shown, labels) {
            let mx = px(marker.timestampSeconds)
            out += "<line x1=\"\(f(mx))\" y1=\"\(f(y - 3))\" x2=\"\(f(mx))\" y2=\"\(f(y + Self.bandHeight + 3))\" stroke=\"#d62728\" stroke-width=\"1\"/>"
            guard !label.text.isEmpty else { out += "\n"; continue }
            let title = label.text == marker.label ? "" : "<title>\(ScanPathPlot.escape(marker.label))</title>"
            out += "<text x=\"\(f(label.x))\" y=\"\(f(y + Self.bandHeight + 14 + 12 * Double(label.row)))\">"
                + "\(ScanPathPlot.escape(label.text))\(title)</text>\n"
        }
        var keyX = x
        let keyY = y + Self.bandHeight + 44
        for name in ExpressionName.allCases {
            out += "<rect x=\"\(f(keyX))\" y=\"\(f(keyY - 9))\" width=\"10\" height=\"10\" fill=\"\(Self.colour(name))\"/>"
            out += "<text x=\"\(f(keyX + 13))\" y=\"\(f(keyY))\">\(name.rawValue)</text>\n"
            keyX += 20 + Double(name.rawValue.count) * 6.5
        }
        out += "<text x=\"\(f(keyX + 6))\" y=\"\(f(keyY))\">— line: smile (0…1); red ticks: markers</text>\n"
        return out + "</g>\n"
    }

    /// Where each marker's label goes so that no two overlap: just right of its tick, the rows
    /// taken in turn (the first marker's label in the first row, the next in the second, …), each
    /// label shortened (ending in "…") to end before the next label of its row, or left out when
    /// not even one character fits (the tick stays). `ticks` are the markers' x and labels in time
    /// order; the last label of a row keeps its whole length.
    static func layLabels(_ ticks: [(x: Double, label: String)]) -> [(x: Double, row: Int, text: String)] {
        ticks.enumerated().map { index, tick in
            let x = tick.x + 2
            let row = index % labelRows
            let next = index + labelRows < ticks.count ? ticks[index + labelRows].x + 2 : Double.infinity
            let room = next - 4 - x
            if Double(tick.label.count) * characterWidth <= room { return (x, row, tick.label) }
            let characters = Int((room / characterWidth).rounded(.down)) - 1
            return (x, row, characters >= 1 ? String(tick.label.prefix(characters)) + "…" : "")
        }
    }

    /// A stretch of consecutive samples with the same most probable expression.
    struct Run: Equatable {
        var name: ExpressionName
        var start: Double
        var end: Double
        var meanProbability: Double
    }

    /// The samples as runs of one dominant expression, each reaching to the next sample's time
    /// (a sample before a gap longer than `gapSeconds` covers one typical frame interval only).
    func runs() -> [Run] {
        guard !samples.isEmpty else { return [] }
        let frameSeconds = samples.count > 1
            ? Swift.max((samples.last!.timestampSeconds - samples.first!.timestampSeconds) / Double(samples.count - 1), 1e-3)
            : 1.0 / 30
        var runs: [Run] = []
        var count = 0
        for (index, sample) in samples.enumerated() {
            let next = index + 1 < samples.count ? samples[index + 1].timestampSeconds : sample.timestampSeconds + frameSeconds
            let end = next - sample.timestampSeconds > Self.gapSeconds ? sample.timestampSeconds + frameSeconds : next
            let name = sample.probabilities.dominant
            let probability = sample.probabilities[name]
            if var last = runs.last, last.name == name, last.end == sample.timestampSeconds {
                last.meanProbability = (last.meanProbability * Double(count) + probability) / Double(count + 1)
                last.end = end
                runs[runs.count - 1] = last
                count += 1
            } else {
                runs.append(Run(name: name, start: sample.timestampSeconds, end: end, meanProbability: probability))
                count = 1
            }
        }
        return runs
    }

    private func f(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
