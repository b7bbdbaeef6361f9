import Foundation
import GazeModel
import Testing
@testable import StimulusAnalysis

@Suite struct GazeOverlayTests {
    /// 20 stimulus pixels per degree (StimulusTestData): σ = 20 pixels, the point's radius 6, a fixation's 16.
    let conversion = YCbCrConversion(matrix: .bt601, fullRange: false)

    @Test func coloursConvertByTheVideosMatrixAndRange() {
        let limited = YCbCrConversion(matrix: .bt601, fullRange: false)
        #expect(limited.ycbcr(RGBColour(255, 255, 255)) == (235, 128, 128))
        #expect(limited.ycbcr(RGBColour(0, 0, 0)) == (16, 128, 128))
        // BT.601 red: Y = 16 + 219 × 0.299, Cb = 128 − 112 × 0.299 / 0.886, Cr = 128 + 112.
        #expect(limited.ycbcr(RGBColour(255, 0, 0)) == (81, 90, 240))
        let full = YCbCrConversion(matrix: .bt709, fullRange: true)
        #expect(full.ycbcr(RGBColour(255, 255, 255)) == (255, 128, 128))
        // BT.709 green: Y = 255 × 0.7152, Cb = 128 − 127.5 × 0.7152 / 0.9278, Cr = 128 − 127.5 × 0.7152 / 0.7874.
        #expect(full.ycbcr(RGBColour(0, 255, 0)) == (182, 30, 12))
    }

    @Test func theHeatIsTheShareOfTheWindowSpentAtAPointWeightedByAGaussianInDegrees() throws {
        // Given one participant looking at (96, 60) for 3 s, another at (96, 60) for 1 s then at (240, 60).
        let still = try StimulusTestData.viewing("a", seconds: 3, gaze: StimulusTestData.gaze(seconds: 3) { _ in Point2(96, 60) })
        let moving = try StimulusTestData.viewing("b", seconds: 3, gaze: StimulusTestData.gaze(seconds: 3) { t in
            t < 1 ? Point2(96, 60) : Point2(240, 60)
        })
        let overlay = GazeOverlay(viewings: [still, moving], width: 320, height: 180)
        #expect(overlay.cellPixels == 6)
        // When both looked at (96, 60) for the whole last second: 1 there (each sample stands for
        // 1/32 s, 32 of them in the window), e^(−1/2) one σ (20 px) away, nothing beyond 3σ.
        let together = overlay.heat(at: 0.99)
        #expect(abs(together.value(x: 96, y: 60) - 1) < 1e-9)
        #expect(abs(together.value(x: 96, y: 84) - exp(-24.0 * 24 / 800)) < 1e-9)
        #expect(together.value(x: 96, y: 130) == 0 && together.value(x: 240, y: 60) == 0)
        // Two seconds later each looks at its own point: half the participants' time at each.
        let apart = overlay.heat(at: 2.5)
        #expect(abs(apart.value(x: 96, y: 60) - 0.5) < 1e-9 && abs(apart.value(x: 240, y: 60) - 0.5) < 1e-9)
    }

    @Test func eachParticipantsGazeIsDrawnInItsColourAndNothingFarFromTheGazeChanges() throws {
        let gaze = StimulusTestData.gaze(seconds: 3) { t in Point2(60 + 40 * t, 90) }
        let viewing = try StimulusTestData.viewing("a", seconds: 3, gaze: gaze)
        let overlay = GazeOverlay(viewings: [viewing], width: 320, height: 180)
        let gray = PlanarFrame(width: 320, height: 180, y: 120, cb: 128, cr: 128)
        var frame = gray
        let t = 2.0
        overlay.draw(on: &frame, at: t, conversion: conversion)
        let orange = conversion.ycbcr(OverlayStyle.palette[0])
        // At the gaze point: the participant's colour, opaque.
        let drawn = frame.sample(x: 140, y: 90)
        #expect(drawn.y == orange.y && drawn.cb == orange.cb && drawn.cr == orange.cr)
        // Beyond the heatmap's reach (3σ past the last second's gaze, plus a cell) nothing changed.
        var changedFar = 0, changed = 0
        for y in 0..<180 {
            for x in 0..<320 where frame.bytes[y * 320 + x] != gray.bytes[y * 320 + x] {
                changed += 1
                let nearest = max(0, max(100 - Double(x), Double(x) - 140))
                if (nearest * nearest + (Double(y) - 90) * (Double(y) - 90)).squareRoot() > 60 + 6 * 1.5 { changedFar += 1 }
            }
        }
        #expect(changed > 1000 && changedFar == 0)
        // Off the stimulus: nothing drawn for the point, and no heat from that moment.
        let away = try StimulusTestData.viewing("b", seconds: 3, gaze: StimulusTestData.gaze(seconds: 3) { _ in nil })
        var untouched = gray
        GazeOverlay(viewings: [away], width: 320, height: 180).draw(on: &untouched, at: t, conversion: conversion)
        #expect(untouched == gray)
    }

    @Test func aFixationIsDrawnLargerAtItsCentre() throws {
        // Still for 1 s at (200, 100): a fixation whose disc (16 px) reaches beyond the point (6 px).
        let viewing = try StimulusTestData.viewing("a", seconds: 2, gaze: StimulusTestData.gaze(seconds: 2) { _ in Point2(200, 100) })
        let overlay = GazeOverlay(viewings: [viewing], width: 320, height: 180)
        let marks = overlay.marks(at: 1)
        #expect(marks.count == 1 && marks[0].gaze == Point2(200, 100) && marks[0].fixation == Point2(200, 100))
        var style = OverlayStyle()
        style.heatmapOpacity = 0
        var frame = PlanarFrame(width: 320, height: 180, y: 120)
        GazeOverlay(viewings: [viewing], width: 320, height: 180, style: style).draw(on: &frame, at: 1, conversion: conversion)
        // The ring at 15.5 pixels is the participant's colour; 10 pixels out (between point and ring) half of it.
        let orange = conversion.ycbcr(OverlayStyle.palette[0])
        #expect(frame.sample(x: 215, y: 100).y == orange.y)
        let between = Int(frame.sample(x: 210, y: 100).y)
        #expect(abs(between - (120 * 141 + Int(orange.y) * 115 + 128) / 256) <= 1)
        #expect(frame.sample(x: 230, y: 100).y == 120)
    }

    @Test func aCropAtAnOddOffsetAveragesTheChromaItStraddles() {
        var frame = PlanarFrame(width: 8, height: 4)
        for index in 0..<32 { frame.bytes[index] = UInt8(index) }
        // Cb of the four 2×2 blocks per row: 10, 20, 30, 40 / 50, 60, 70, 80; Cr all 128.
        for index in 0..<8 { frame.bytes[frame.cbOffset + index] = UInt8(10 * (index + 1)) }
        let crop = frame.cropped(x: 1, y: 0, width: 4, height: 2)
        #expect(Array(crop.bytes[0..<8]) == [1, 2, 3, 4, 9, 10, 11, 12])
        #expect(Array(crop.bytes[crop.cbOffset..<crop.crOffset]) == [15, 25])
        #expect(crop.sample(x: 0, y: 0).cr == 128)
        let even = frame.cropped(x: 2, y: 2, width: 4, height: 2)
        #expect(Array(even.bytes[even.cbOffset..<even.crOffset]) == [60, 70])
    }
}
