import Foundation
import GazeModel
import Testing
@testable import StimulusAnalysis

/// The overlay a researcher would show: a heatmap visible on any picture, a legend, a time readout
/// and the areas of interest where they are.
@Suite struct OverlayPresentationTests {
    let conversion = YCbCrConversion(matrix: .bt601, fullRange: false)

    /// The luma difference from the picture of every pixel whose heat is clearly drawn (at least
    /// twice the lowest drawn heat), on a picture of one colour.
    func heatContrasts(on colour: RGBColour, style: OverlayStyle) throws -> [Int] {
        let viewing = try StimulusTestData.viewing("a", seconds: 2, gaze: StimulusTestData.gaze(seconds: 2) { t in Point2(100 + 60 * t, 90) })
        let overlay = GazeOverlay(viewings: [viewing], width: 320, height: 180, style: style)
        let heat = overlay.heat(at: 1.5)
        let background = conversion.ycbcr(colour)
        var frame = PlanarFrame(width: 320, height: 180, y: background.y, cb: background.cb, cr: background.cr)
        HeatPainter(style: style, conversion: conversion).paint(heat, on: &frame)
        let clearly = 2 * Double(HeatPainter.lowestLevel) / 255 * style.heatmapFullShare
        var contrasts: [Int] = []
        for y in 0..<180 {
            for x in 0..<320 where heat.value(x: Double(x), y: Double(y)) >= clearly {
                contrasts.append(abs(Int(frame.bytes[y * 320 + x]) - Int(background.y)))
            }
        }
        return contrasts.sorted()
    }

    @Test func theHeatmapStaysVisibleOnBrightBlueAndYellowPictures() throws {
        let pictures = [("bright", RGBColour(255, 255, 255)), ("blue", RGBColour(0, 0, 255)), ("yellow", RGBColour(255, 255, 0))]
        for (name, colour) in pictures {
            let contrasts = try heatContrasts(on: colour, style: OverlayStyle())
            try #require(contrasts.count > 1000, "\(name)")
            // Every drawn heat pixel differs from the picture by at least the style's 16 luma levels.
            #expect(contrasts.first! >= 16, "\(name): least contrast \(contrasts.first!), median \(contrasts[contrasts.count / 2])")
        }
        // Plain blending (what the overlay drew before) loses the faint heat on every one of them.
        for (name, colour) in pictures {
            var plain = OverlayStyle()
            plain.heatmapMinimumContrast = 0
            let contrasts = try heatContrasts(on: colour, style: plain)
            #expect(contrasts.first! < 8, "\(name): least contrast \(contrasts.first!)")
        }
    }

    @Test func theLegendGivesEachParticipantsColourAndLabelAndTheReadoutTheTime() throws {
        let a = try StimulusTestData.viewing("A1B2C3D4-0000", seconds: 2, gaze: StimulusTestData.gaze(seconds: 2) { _ in Point2(200, 100) })
        let b = try StimulusTestData.viewing("FFEE0011-0000", seconds: 2, gaze: StimulusTestData.gaze(seconds: 2) { _ in Point2(250, 100) })
        let overlay = GazeOverlay(viewings: [a, b], width: 320, height: 180)
        #expect(overlay.legendLabels == ["A1B2C3D4", "FFEE0011"])
        // Ids alike in their first 8 characters are told apart by their last 12.
        let twin = try StimulusTestData.viewing("A1B2C3D4-0000-0000-0000-000000000002", seconds: 2, gaze: [])
        let first8 = try StimulusTestData.viewing("A1B2C3D4-0000-0000-0000-000000000001", seconds: 2, gaze: [])
        #expect(GazeOverlay(viewings: [first8, twin], width: 320, height: 180).legendLabels == ["000000000001", "000000000002"])
        let grey = PlanarFrame(width: 320, height: 180, y: 120, cb: 128, cr: 128)
        var first = grey, second = grey
        overlay.annotate(&first, at: 0.5, conversion: conversion)
        overlay.annotate(&second, at: 1.25, conversion: conversion)
        // Each participant's swatch in its colour, one line apart.
        let legend = overlay.legendBox, line = OverlayFont.glyphHeight + 3
        for index in 0..<2 {
            let colour = conversion.ycbcr(OverlayStyle.palette[index])
            #expect(first.sample(x: 4, y: 4 + index * line).y == colour.y, "participant \(index)")
        }
        // Only the legend and the readout changed; the readout differs between the two times.
        let time = overlay.timeBox
        var outside = 0, readoutDiffers = 0
        for y in 0..<180 {
            for x in 0..<320 {
                let inBoxes = legend.contains(x: x, y: y) || time.contains(x: x, y: y)
                if !inBoxes && first.bytes[y * 320 + x] != grey.bytes[y * 320 + x] { outside += 1 }
                if time.contains(x: x, y: y) && first.bytes[y * 320 + x] != second.bytes[y * 320 + x] { readoutDiffers += 1 }
            }
        }
        #expect(outside == 0 && readoutDiffers > 20)
        #expect(GazeOverlay.timeText(1.25) == "1.25 s")
        // The label's first glyph, "A": its top row's middle three pixels white.
        let white = conversion.ycbcr(RGBColour(255, 255, 255)).y
        let textLeft = 4 + OverlayFont.glyphHeight
        #expect((1...3).allSatisfy { first.sample(x: textLeft + $0, y: 2).y == white } && first.sample(x: textLeft, y: 2).y != white)
    }

    @Test func anAreasNameAtTheTopLeftIsNotHiddenUnderTheLegend() throws {
        let viewing = try StimulusTestData.viewing("a", seconds: 2, gaze: StimulusTestData.gaze(seconds: 2) { _ in nil })
        let corner = AreaOfInterest(name: "TOP", shape: .rect(x: 0, y: 0, width: 120, height: 80))
        let overlay = GazeOverlay(viewings: [viewing], width: 320, height: 180, areas: [corner])
        var frame = PlanarFrame(width: 320, height: 180, y: 120, cb: 128, cr: 128)
        // As the overlay draws a frame: the areas, then the legend and readout over them.
        overlay.draw(on: &frame, at: 1, conversion: conversion)
        overlay.annotate(&frame, at: 1, conversion: conversion)
        // The name's glyph rows (below the area's top outline) right of the legend hold white text.
        let white = conversion.ycbcr(RGBColour(255, 255, 255)).y, legend = overlay.legendBox
        let text = (4...7).flatMap { y in (legend.width + 1..<legend.width + OverlayFont.width("TOP", scale: 1)).map { (x: $0, y: y) } }
        #expect(text.filter { frame.sample(x: $0.x, y: $0.y).y == white }.count > 5,
                "legend \(legend): \((4...7).map { y in (legend.width..<legend.width + 20).map { frame.sample(x: $0, y: y).y } })")
    }

    @Test func aKeyframedAreaIsDrawnWhereItsMotionHasItAndNotOutsideItsLife() throws {
        let viewing = try StimulusTestData.viewing("a", seconds: 4, gaze: StimulusTestData.gaze(seconds: 4) { _ in nil })
        let box = try AreaOfInterest(name: "ball", keyframes: [.init(seconds: 1, shape: .rect(x: 40, y: 60, width: 40, height: 40)),
                                                                 .init(seconds: 3, shape: .rect(x: 240, y: 60, width: 40, height: 40))])
        let overlay = GazeOverlay(viewings: [viewing], width: 320, height: 180, areas: [box])
        let grey = PlanarFrame(width: 320, height: 180, y: 120, cb: 128, cr: 128)
        let white = conversion.ycbcr(RGBColour(255, 255, 255)).y
        // At 2 s the box is halfway: its left edge at x 140, from y 60 to 100.
        var frame = grey
        overlay.draw(on: &frame, at: 2, conversion: conversion)
        // (white where the outline's anti-aliased discs overlap: within 12 luma levels of it)
        #expect((62...98).allSatisfy { frame.sample(x: 140, y: $0).y >= white - 12 }, "\((58...102).map { frame.sample(x: 140, y: $0).y })")
        #expect(frame.sample(x: 160, y: 80).y == 120 && frame.sample(x: 40, y: 80).y == 120)
        // Before its first keyframe it is not drawn at all.
        var early = grey
        overlay.draw(on: &early, at: 0.5, conversion: conversion)
        #expect(early == grey)
    }
}
