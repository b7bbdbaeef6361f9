import Foundation
import GazeCapture
import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import GazeVision

@Suite("The seating check on real frames")
struct SeatingCheckTests {
    /// The seating reports of the first `seconds` of a fixture clip, each frame turned by `change`
    /// first, through the pipeline (with the first-second hook set as `calibrate` sets it).
    func reports(_ name: String, seconds: Double = 3, change: (GrayImage) -> GrayImage = { $0 })
        throws -> (reports: [SeatingReport], firstSecond: SeatingReport?) {
        let source = try VideoFileSource(path: Fixtures.path(name))
        let pipeline = try FramePipeline(model: VisionFixtures.model(), width: source.width, height: source.height)
        nonisolated(unsafe) var firstSecond: SeatingReport?
        pipeline.checkSeatingOverFirstSecond { firstSecond = $0 }
        var check = SeatingCheck(frameWidth: source.width, frameHeight: source.height)
        var reports: [SeatingReport] = []
        while let frame = try source.nextFrame(), frame.timestampSeconds < seconds {
            let (features, _) = try pipeline.process(Frame(index: frame.index, timestampSeconds: frame.timestampSeconds,
                                                           image: change(frame.image)))
            if let report = check.add(features) { reports.append(report) }
        }
        if let report = check.finish() { reports.append(report) }
        return (reports, firstSecond)
    }

    @Test("the blink clip as it is: a face, figures in range, ok every second; the first-second hook says the same",
          .enabled(if: VisionFixtures.available, VisionFixtures.missingReason))
    func asItIs() throws {
        let (reports, first) = try reports("video/cap13_blinks_20s.mp4")
        #expect(reports.count == 3)
        #expect(reports.map(\.timeSeconds).prefix(2) == [1, 2])
        for report in reports {
            #expect(report.face && report.centred && report.ok, "\(report.adviceText)")
            // A 400×300 clip: the face about a quarter of the width, eyes 16–18 px, about 0.6 m away.
            #expect((85...105).contains(report.faceWidthPixels ?? 0))
            #expect((15...19).contains(report.eyeWidthPixels ?? 0))
            #expect((550...700).contains(report.distanceMillimetres ?? 0))
            #expect((0.3...0.5).contains(report.brightness ?? 0))
            #expect(report.glare == 0)
        }
        let firstSecond = try #require(first)
        #expect(firstSecond.timeSeconds == 1 && firstSecond.eyeWidthPixels == reports[0].eyeWidthPixels)
    }

    @Test("darkened to a sixth: the light advice, with the brightness it measured",
          .enabled(if: VisionFixtures.available, VisionFixtures.missingReason))
    func darkened() throws {
        let (reports, _) = try reports("video/cap13_blinks_20s.mp4", seconds: 2) { image in
            GrayImage(width: image.width, height: image.height, pixels: image.pixels.map { UInt8(Double($0) / 6) })
        }
        let report = try #require(reports.first)
        #expect(report.face)
        #expect((report.brightness ?? 1) < SeatingThresholds().brightnessRange.lowerBound)
        #expect(report.advice.contains { if case .moreLight = $0 { true } else { false } })
        #expect(report.adviceText.hasPrefix("turn the light towards you"))
    }

    @Test("a blank picture: no face is advice too, not an error",
          .enabled(if: VisionFixtures.available, VisionFixtures.missingReason))
    func noFace() throws {
        let (reports, first) = try reports("video/cap13_blinks_20s.mp4", seconds: 2) { image in
            GrayImage(width: image.width, height: image.height, pixels: [UInt8](repeating: 90, count: image.pixels.count))
        }
        #expect(reports.count == 2)
        #expect(reports.allSatisfy { !$0.face && !$0.centred && !$0.ok && $0.advice == [.noFace] && $0.eyeWidthPixels == nil })
        #expect(first?.advice == [.noFace])
    }

    @Test("the margin for head turns: the edge a face box crosses, the one crossed most")
    func edges() {
        let thresholds = SeatingThresholds()
        // A 100 px face needs 25 px on every side of a 400×300 picture.
        #expect(SeatingReport.edgeLeft(box: (150, 100, 250, 200), width: 400, height: 300, thresholds: thresholds) == nil)
        #expect(SeatingReport.edgeLeft(box: (25, 100, 125, 200), width: 400, height: 300, thresholds: thresholds) == nil)
        #expect(SeatingReport.edgeLeft(box: (20, 100, 120, 200), width: 400, height: 300, thresholds: thresholds) == "left")
        #expect(SeatingReport.edgeLeft(box: (290, 100, 390, 200), width: 400, height: 300, thresholds: thresholds) == "right")
        #expect(SeatingReport.edgeLeft(box: (150, 10, 250, 110), width: 400, height: 300, thresholds: thresholds) == "top")
        #expect(SeatingReport.edgeLeft(box: (290, 200, 390, 299), width: 400, height: 300, thresholds: thresholds) == "bottom")
    }

    @Test("the hold: seconds in range in a row, reset by a second out of range",
          .enabled(if: VisionFixtures.available, VisionFixtures.missingReason))
    func hold() throws {
        let ok = try #require(try reports("video/cap13_blinks_20s.mp4", seconds: 1.5).reports.first)
        var notOK = ok
        notOK.advice = [.noFace]
        var tally = HoldTally(holdSeconds: 2)
        let held = [ok, notOK, ok, ok].map { tally.add($0) }
        #expect(held == [false, false, false, true])
        var immediate = HoldTally(holdSeconds: 0)
        let heldAtOnce = [notOK, ok].map { immediate.add($0) }
        #expect(heldAtOnce == [false, true])
    }
}
