import Foundation
import GazeModel

/// A rectangle of the frame the overlay's annotations cover (pixels: left, top, width, height).
public struct OverlayBox: Sendable, Equatable {
    public var x: Int, y: Int, width: Int, height: Int

    public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < x + width && py >= y && py < y + height }
}

extension GazeOverlay {
    /// The font's pixel size: 1 up to 359 rows, then one more per 360 rows (2 at 720p, 3 at 1080p).
    public var textScale: Int { Swift.max(1, height / 360) }

    /// Each participant's label in the legend: the one given, else the session id's first 8
    /// characters, or its last 12 when those are not unique among the sessions (else the whole id).
    public var legendLabels: [String] {
        let ids = viewings.map(\.sessionID)
        let short = [ids.map { String($0.prefix(8)) }, ids.map { String($0.suffix(12)) }, ids]
            .first { Set($0).count == ids.count } ?? ids
        return ids.indices.map { index in index < labels.count ? labels[index] : short[index] }
    }

    /// Where the legend goes: the top-left corner, one line per participant (a swatch of its colour, its label).
    public var legendBox: OverlayBox {
        let s = textScale, line = (OverlayFont.glyphHeight + 3) * s
        let widest = legendLabels.map { OverlayFont.width($0, scale: s) }.max() ?? 0
        return OverlayBox(x: 0, y: 0, width: 3 * s + OverlayFont.glyphHeight * s + 2 * s + widest + 2 * s,
                          height: 3 * s + line * viewings.count)
    }

    /// The time readout at `seconds` ("12.34 s", stimulus time): its text.
    public static func timeText(_ seconds: Double) -> String { String(format: "%.2f s", seconds) }

    /// Where the time readout goes: the bottom-left corner, wide enough for any time up to 9999.99 s.
    public var timeBox: OverlayBox {
        let s = textScale, height = (OverlayFont.glyphHeight + 4) * s
        return OverlayBox(x: 0, y: self.height - height, width: OverlayFont.width("9999.99 s", scale: s) + 4 * s, height: height)
    }

    /// Draws the legend (each participant's colour and label) and the time readout on dark,
    /// half-transparent boxes, so they read on any picture.
    public func annotate(_ frame: inout PlanarFrame, at seconds: Double, conversion: YCbCrConversion) {
        let s = textScale, dark = conversion.ycbcr(RGBColour(0, 0, 0)), white = conversion.ycbcr(RGBColour(255, 255, 255))
        let legend = legendBox
        frame.fill(x: legend.x, y: legend.y, width: legend.width, height: legend.height, colour: dark, opacity: 0.6)
        for (index, label) in legendLabels.enumerated() {
            let top = 2 * s + index * (OverlayFont.glyphHeight + 3) * s
            let colour = conversion.ycbcr(OverlayStyle.palette[index % OverlayStyle.palette.count])
            frame.fill(x: 2 * s, y: top, width: OverlayFont.glyphHeight * s, height: OverlayFont.glyphHeight * s, colour: colour, opacity: 1)
            frame.text(label, x: 4 * s + OverlayFont.glyphHeight * s, y: top, scale: s, colour: white)
        }
        let time = timeBox
        frame.fill(x: time.x, y: time.y, width: time.width, height: time.height, colour: dark, opacity: 0.6)
        frame.text(Self.timeText(seconds), x: 2 * s, y: time.y + 2 * s, scale: s, colour: white)
    }

    /// Draws each area of interest that exists at `seconds` as its outline there (keyframed areas
    /// where their motion has them), white on a dark edge, its name above its top-left corner (right
    /// of the legend where the legend would cover it).
    func drawAreas(on frame: inout PlanarFrame, at seconds: Double, conversion: YCbCrConversion) {
        let dark = conversion.ycbcr(RGBColour(0, 0, 0)), white = conversion.ycbcr(RGBColour(255, 255, 255))
        let s = textScale, width = Double(2 * s)
        for area in areas {
            guard let shape = area.shape(at: seconds) else { continue }
            let outline = Self.outline(shape)
            for (colour, line) in [(dark, width + 2), (white, width)] {
                for (a, b) in zip(outline, outline.dropFirst() + outline.prefix(1)) { frame.line(from: a, to: b, width: line, colour: colour) }
            }
            let box = shape.bounds, textHeight = OverlayFont.glyphHeight * s
            let top = Swift.max(0, Int(box.minY) - textHeight - 2 * s)
            let label = OverlayBox(x: Swift.max(0, Int(box.minX)), y: top, width: OverlayFont.width(area.name, scale: s) + s,
                                   height: textHeight + 2 * s)
            let left = nameLeft(label)
            frame.fill(x: left, y: top, width: label.width, height: label.height, colour: dark, opacity: 0.6)
            frame.text(area.name, x: left + s, y: top + s, scale: s, colour: white)
        }
    }

    /// Where an area's name starts: above its top-left corner, or, where the legend (drawn over the
    /// picture after the areas, at the top-left) would cover it there, just right of the legend.
    func nameLeft(_ label: OverlayBox) -> Int {
        let legend = legendBox
        let covered = label.x < legend.x + legend.width && label.x + label.width > legend.x
            && label.y < legend.y + legend.height && label.y + label.height > legend.y
        return covered ? legend.x + legend.width : label.x
    }

    /// The corners of a shape's outline in order (an ellipse as 48 points around it).
    static func outline(_ shape: AOIShape) -> [Point2] {
        switch shape {
        case let .rect(x, y, w, h): [Point2(x, y), Point2(x + w, y), Point2(x + w, y + h), Point2(x, y + h)]
        case let .ellipse(cx, cy, rx, ry):
            (0..<48).map { let a = Double($0) / 48 * 2 * Double.pi; return Point2(cx + rx * cos(a), cy + ry * sin(a)) }
        case let .polygon(points): points
        }
    }
}
