import Foundation
import GazeModel

/// How the overlay draws (docs/Analysis.md, "Stimuli"); sizes in degrees of visual angle, turned
/// into stimulus pixels by each session's own geometry.
public struct OverlayStyle: Sendable, Equatable {
    /// The heatmap's Gaussian: its standard deviation (degrees).
    public var heatmapSigmaDegrees = 1.0
    /// The heatmap sums the gaze of this many seconds up to the frame (the trailing window).
    public var heatmapWindowSeconds = 1.0
    /// The heat (share of the participants' time in the window, Gaussian-weighted) drawn at full
    /// colour and opacity: red. Less is drawn along blue → green → yellow → red, more transparent.
    public var heatmapFullShare = 0.5
    /// The heatmap's opacity at full heat.
    public var heatmapOpacity = 0.6
    /// The least luma difference (8-bit code values) a heat pixel keeps from the picture under it,
    /// at the lowest drawn heat; twice this at full heat. A colour that would blend into the picture
    /// (blue heat on a blue sky, yellow on yellow) is made lighter or darker by as much, so the
    /// heatmap stays visible on any background. 0: plain blending.
    public var heatmapMinimumContrast = 16.0
    /// The gaze point's radius, at least `minimumPointPixels` (degrees).
    public var pointRadiusDegrees = 0.3
    public var minimumPointPixels = 3.0
    /// During a fixation: a disc of this radius at its centre (degrees), at least three times
    /// `minimumPointPixels`, drawn half transparent with a solid edge.
    public var fixationRadiusDegrees = 0.8

    public init() {}

    /// The participants' colours in order (Okabe and Ito's colour-blind-safe palette without
    /// black; a study of more participants repeats it).
    public static let palette = [
        RGBColour(230, 159, 0), RGBColour(86, 180, 233), RGBColour(0, 158, 115), RGBColour(240, 228, 66),
        RGBColour(0, 114, 178), RGBColour(213, 94, 0), RGBColour(204, 121, 167),
    ]
}

/// What the overlay shows of one participant at one time.
public struct OverlayMark: Sendable, Equatable {
    /// The participant's index in the sessions given (its colour: `OverlayStyle.palette`).
    public var participant: Int
    /// The gaze sample standing for that time, on the stimulus (nil: off it, or no sample).
    public var gaze: Point2?
    /// The centre of the fixation under way, on the stimulus (nil: none).
    public var fixation: Point2?
    /// Stimulus pixels per degree for this participant.
    public var pixelsPerDegree: Double
}

/// Sessions' gaze drawn over a stimulus's frames: each participant's gaze point in its colour
/// (fixations larger), over a heatmap of everyone's gaze in a trailing window, with the areas of
/// interest where they are at each moment; `annotate` adds a legend and a time readout.
public struct GazeOverlay: Sendable {
    public let viewings: [StimulusViewing]
    /// The areas of interest drawn (outlines, keyframed ones where they are at the frame's time).
    public let areas: [AreaOfInterest]
    /// The participants' labels in the legend, in the viewings' order (missing ones: the session id's first 8 characters).
    public let labels: [String]
    public let style: OverlayStyle
    public let width: Int
    public let height: Int
    /// The heat grid's cell side (pixels): a third of the smallest Gaussian's deviation.
    public let cellPixels: Int

    public init(viewings: [StimulusViewing], width: Int, height: Int, style: OverlayStyle = OverlayStyle(),
                areas: [AreaOfInterest] = [], labels: [String] = []) {
        self.viewings = viewings
        self.areas = areas
        self.labels = labels
        self.width = width
        self.height = height
        self.style = style
        let sigma = viewings.map { style.heatmapSigmaDegrees * $0.pixelsPerDegree }.filter { $0 > 0 }.min() ?? 12
        cellPixels = Swift.max(1, Swift.min(32, Int(sigma / 3)))
    }

    /// Each participant's gaze and fixation at `seconds` (stimulus time).
    public func marks(at seconds: Double) -> [OverlayMark] {
        viewings.enumerated().map { index, viewing in
            let gaze = viewing.sampleIndex(at: seconds).flatMap { viewing.samples[$0].pixel }
            let fixation = viewing.fixations.last { $0.startSeconds <= seconds && seconds < $0.endSeconds }?.pixel
            return OverlayMark(participant: index, gaze: gaze, fixation: fixation, pixelsPerDegree: viewing.pixelsPerDegree)
        }
    }

    /// The heat at `seconds` on the grid of `cellPixels` cells (row-major, the value at each
    /// cell's top-left pixel): Σ over the on-stimulus samples of the trailing window of the time
    /// each stands for × exp(−d²/2σ²), over (participants × window): 1 where every participant
    /// looked, unmoving, for the whole window.
    public func heat(at seconds: Double) -> HeatGrid {
        var grid = HeatGrid(columns: width / cellPixels + 2, rows: height / cellPixels + 2, cellPixels: cellPixels)
        let participants = Double(Swift.max(1, viewings.count(where: \.hasGaze)))
        let scale = 1 / (participants * style.heatmapWindowSeconds)
        for viewing in viewings {
            let sigma = style.heatmapSigmaDegrees * viewing.pixelsPerDegree
            guard sigma > 0 else { continue }
            var index = viewing.firstSample(after: seconds - style.heatmapWindowSeconds)
            while index < viewing.samples.count, viewing.samples[index].seconds <= seconds {
                let sample = viewing.samples[index]
                index += 1
                if let pixel = sample.pixel { grid.add(pixel, sigma: sigma, weight: sample.durationSeconds * scale) }
            }
        }
        return grid
    }

    /// Draws the heatmap, the areas of interest, then each participant's fixation and gaze point,
    /// at `seconds` onto `frame`.
    public func draw(on frame: inout PlanarFrame, at seconds: Double, conversion: YCbCrConversion) {
        HeatPainter(style: style, conversion: conversion).paint(heat(at: seconds), on: &frame)
        drawAreas(on: &frame, at: seconds, conversion: conversion)
        let outline = conversion.ycbcr(RGBColour(0, 0, 0))
        for mark in marks(at: seconds) {
            let colour = conversion.ycbcr(OverlayStyle.palette[mark.participant % OverlayStyle.palette.count])
            let point = Swift.max(style.minimumPointPixels, style.pointRadiusDegrees * mark.pixelsPerDegree)
            if let centre = mark.fixation {
                let radius = Swift.max(3 * style.minimumPointPixels, style.fixationRadiusDegrees * mark.pixelsPerDegree)
                frame.disc(centre: centre, radius: radius, colour: colour, opacity: 0.45)
                frame.ring(centre: centre, radius: radius, width: Swift.max(2, radius / 8), colour: colour, opacity: 1)
            }
            if let gaze = mark.gaze {
                frame.disc(centre: gaze, radius: point + 1, colour: outline, opacity: 0.8)
                frame.disc(centre: gaze, radius: point, colour: colour, opacity: 1)
            }
        }
    }
}

extension StimulusViewing {
    /// The index of the first sample later than `seconds` (the count when none is).
    func firstSample(after seconds: Double) -> Int {
        var low = 0, high = samples.count
        while low < high {
            let middle = (low + high) / 2
            if samples[middle].seconds <= seconds { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// Heat on a grid of square cells over the stimulus (the value at each cell's top-left pixel).
public struct HeatGrid: Sendable, Equatable {
    public let columns: Int
    public let rows: Int
    public let cellPixels: Int
    public var values: [Double]

    public init(columns: Int, rows: Int, cellPixels: Int) {
        self.columns = columns
        self.rows = rows
        self.cellPixels = cellPixels
        values = [Double](repeating: 0, count: columns * rows)
    }

    /// Adds `weight` × exp(−d²/2σ²) around `centre` (pixels), out to 3σ.
    mutating func add(_ centre: Point2, sigma: Double, weight: Double) {
        let cell = Double(cellPixels), reach = 3 * sigma
        let firstColumn = Swift.max(0, Int(((centre.x - reach) / cell).rounded(.up)))
        let lastColumn = Swift.min(columns - 1, Int(((centre.x + reach) / cell).rounded(.down)))
        let firstRow = Swift.max(0, Int(((centre.y - reach) / cell).rounded(.up)))
        let lastRow = Swift.min(rows - 1, Int(((centre.y + reach) / cell).rounded(.down)))
        guard firstColumn <= lastColumn, firstRow <= lastRow else { return }
        let factor = -1 / (2 * sigma * sigma)
        let across = (firstColumn...lastColumn).map { let d = Double($0) * cell - centre.x; return exp(d * d * factor) }
        for row in firstRow...lastRow {
            let d = Double(row) * cell - centre.y, down = weight * exp(d * d * factor)
            let base = row * columns
            for (offset, value) in across.enumerated() { values[base + firstColumn + offset] += down * value }
        }
    }

    /// The heat at pixel (x, y), interpolated bilinearly between the cells' corners.
    public func value(x: Double, y: Double) -> Double {
        let cell = Double(cellPixels)
        let column = Swift.min(Double(columns - 2), Swift.max(0, x / cell)), row = Swift.min(Double(rows - 2), Swift.max(0, y / cell))
        let left = Int(column), top = Int(row), fx = column - Double(left), fy = row - Double(top)
        let a = values[top * columns + left], b = values[top * columns + left + 1]
        let c = values[(top + 1) * columns + left], d = values[(top + 1) * columns + left + 1]
        return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
    }
}
