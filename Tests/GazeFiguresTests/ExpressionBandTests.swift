import GazeModel
import Testing
@testable import GazeFigures

/// The expression band under the scan path: runs of one dominant expression placed on the time
/// axis, blanks where there was no face, the markers and the band's room in the picture.
@Suite("Expression band")
struct ExpressionBandTests {
    static func sample(_ time: Double, _ name: ExpressionName, _ share: Double) -> ExpressionSample {
        ExpressionSample(timestampSeconds: time, probabilities: ExpressionProbabilities(
            values: ExpressionName.allCases.map { $0 == name ? share : (1 - share) / 6 }))
    }

    @Test("consecutive frames of one dominant expression make one run; a gap without a face is left blank")
    func runs() {
        // 10 Hz: neutral 0.0–0.2, happy 0.3–0.4, then no face until 2.0 (happy again).
        let samples = [Self.sample(0, .neutral, 0.5), Self.sample(0.1, .neutral, 0.7), Self.sample(0.2, .neutral, 0.9),
                       Self.sample(0.3, .happy, 0.6), Self.sample(0.4, .happy, 0.8), Self.sample(2.0, .happy, 1)]
        let band = ExpressionBand(startSeconds: 0, endSeconds: 2.1, samples: samples)
        let runs = band.runs()
        #expect(runs.map(\.name) == [.neutral, .happy, .happy])
        #expect(runs[0].start == 0 && runs[0].end == 0.3 && abs(runs[0].meanProbability - 0.7) < 1e-12)
        // The happy run stops one frame interval (2.0 s / 5) after its last sample before the gap.
        #expect(runs[1].start == 0.3 && abs(runs[1].end - 0.8) < 1e-12 && abs(runs[1].meanProbability - 0.7) < 1e-12)
        #expect(runs[2].start == 2.0)
    }

    @Test("the band sits under the screen with its markers, and the picture grows by its height")
    func drawn() {
        var plot = ScanPathPlot(screenWidth: 1200, screenHeight: 800)
        let gaze = [GazeSample(timestampSeconds: 0, x: 10, y: 10, orientation: 3),
                    GazeSample(timestampSeconds: 1, x: 20, y: 20, orientation: 3)]
        let without = plot.svg(samples: gaze, fixations: [])
        plot.expressionBand = ExpressionBand(startSeconds: 0, endSeconds: 2, samples: [Self.sample(0, .surprise, 1),
                                                                                        Self.sample(0.5, .surprise, 1)],
                                             smile: [(0, 0), (1, 1)], markers: [Marker(timestampSeconds: 1, label: "A&B", dataJSON: nil)])
        let with = plot.svg(samples: gaze, fixations: [])
        func height(_ svg: String) -> Double? {
            guard let range = svg.range(of: #"height=""#) else { return nil }
            return Double(svg[range.upperBound...].prefix { $0 != "\"" })
        }
        #expect(height(with)! - height(without)! == ExpressionBand.height)
        #expect(with.contains(#"<g id="expressions""#) && with.contains(ExpressionBand.colour(.surprise)))
        // The run covers the first half of the screen's width (20 px margin, 1200 px wide): 0 s to 1 s of 2 s
        // (the last sample reaches one frame interval, 0.5 s, beyond its time).
        #expect(with.contains(##"<rect x="20" y="840" width="600" height="36" fill="#3969ac""##))
        #expect(with.contains(">A&amp;B</text>"))
        #expect(!without.contains(#"id="expressions""#))
    }
}

/// Marker labels under the band: laid out so that none overlaps another.
@Suite("Expression band labels")
struct ExpressionBandLabelTests {
    /// The marker labels of the band's SVG: x, baseline y and text (the key's labels left out).
    static func labels(_ svg: String, markers: [String]) -> [(x: Double, y: Double, text: String)] {
        svg.components(separatedBy: "<text x=\"").dropFirst().compactMap { part in
            let x = Double(part.prefix { $0 != "\"" }) ?? .nan
            guard let yStart = part.range(of: "y=\"")?.upperBound, let close = part.range(of: "\">")?.upperBound else { return nil }
            let y = Double(part[yStart...].prefix { $0 != "\"" }) ?? .nan
            let text = String(part[close...].prefix { $0 != "<" })
            return markers.contains(where: { text == $0 || (text.hasSuffix("…") && $0.hasPrefix(text.dropLast())) })
                ? (x, y, text) : nil
        }
    }

    @Test("markers close together get labels that do not overlap, each at its tick; a far one keeps its whole label")
    func noOverlap() {
        let names = (0..<12).map { "stimulus-\($0)" } + ["end-of-trial"]
        let times = (0..<12).map { Double($0) * 0.25 } + [9]
        let band = ExpressionBand(startSeconds: 0, endSeconds: 10, samples: [],
                                  markers: zip(times, names).map { Marker(timestampSeconds: $0, label: $1) })
        let svg = band.svg(x: 0, y: 0, width: 600)
        let placed = Self.labels(svg, markers: names)
        #expect(placed.count == names.count, "\(placed)")
        // 11 px labels: at most 6.5 px a character, 11 px tall.
        var overlaps: [String] = []
        for (i, a) in placed.enumerated() {
            for b in placed[(i + 1)...] where abs(a.y - b.y) < 11 {
                if a.x < b.x + 6.5 * Double(b.text.count) && b.x < a.x + 6.5 * Double(a.text.count) {
                    overlaps.append("\(a.text) and \(b.text)")
                }
            }
        }
        #expect(overlaps.isEmpty, "\(overlaps)")
        #expect(zip(placed.prefix(12), times).allSatisfy { abs($0.x - (60 * $1 + 2)) < 0.01 }, "\(placed)")
        #expect(placed.last?.text == "end-of-trial")
        // A shortened label keeps its whole text as the title a viewer shows on hover.
        #expect(!placed.contains { $0.text.hasSuffix("…") } || svg.contains("<title>stimulus-0</title>"))
    }
}
