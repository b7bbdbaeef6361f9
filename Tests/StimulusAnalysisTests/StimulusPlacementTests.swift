import GazeAnalysis
import GazeModel
import Testing
@testable import StimulusAnalysis

@Suite struct StimulusPlacementTests {
    @Test func screenPointsMapToStimulusPixelsAndOffTheRectangleToNothing() throws {
        let placement = try StimulusTestData.placement()
        #expect(placement.pixel(Point2(100, 50)) == Point2(0, 0))
        #expect(placement.pixel(Point2(420, 230)) == Point2(160, 90))
        #expect(placement.pixel(Point2(739, 409)) == Point2(319.5, 179.5))
        #expect(placement.pixel(Point2(740, 100)) == nil)  // the right edge is outside
        #expect(placement.pixel(Point2(99.9, 100)) == nil)
        #expect(placement.pixel(Point2(200, 410)) == nil)
        #expect(placement.pixelsPerPoint == 0.5)
    }

    @Test func aStimulusOfAnotherAspectThanItsRectangleIsRefused() {
        #expect(throws: StimulusError.aspectMismatch(stimulusWidth: 320, stimulusHeight: 240, rectangleWidth: 640, rectangleHeight: 360)) {
            try StimulusPlacement(screenX: 0, screenY: 0, screenWidth: 640, screenHeight: 360, widthPixels: 320, heightPixels: 240)
        }
        #expect(throws: StimulusError.self) {
            try StimulusPlacement(screenX: 0, screenY: 0, screenWidth: 0, screenHeight: 360, widthPixels: 320, heightPixels: 180)
        }
        // Within 1 %: a rectangle rounded to whole points.
        #expect(throws: Never.self) {
            try StimulusPlacement(screenX: 0, screenY: 0, screenWidth: 641, screenHeight: 360, widthPixels: 320, heightPixels: 180)
        }
    }

    @Test func aViewingKeepsTheStimulusIntervalInStimulusTimeAndDropsFramesWithoutAFace() throws {
        // Given gaze from 1 s before the stimulus to 1 s after its 2 s, one sample without a face.
        var gaze = (-32..<96).map { index in
            GazeSample(timestampSeconds: StimulusTestData.begin + Double(index) * StimulusTestData.step, x: 420, y: 230, orientation: 3)
        }
        gaze[40].trackingState = .missing
        let blinks = [BlinkEvent(startSeconds: 999.5, endSeconds: 999.6, eyes: .both, kind: .blink, minimumOpenness: 0),
                      BlinkEvent(startSeconds: 1000.5, endSeconds: 1000.6, eyes: .both, kind: .blink, minimumOpenness: 0)]
        // When it is aligned to [1000, 1002).
        let viewing = try StimulusTestData.viewing("s", seconds: 2, gaze: gaze, blinks: blinks)
        // Then 64 samples less the faceless one remain, from stimulus time 0, each standing for one step
        // (the one before the faceless frame for two steps, capped at 0.1 s).
        #expect(viewing.samples.count == 63)
        #expect(viewing.samples.first?.seconds == 0)
        #expect(viewing.samples.last?.seconds == 2 - StimulusTestData.step)
        #expect(viewing.samples[7].durationSeconds == 2 * StimulusTestData.step)
        #expect(viewing.samples[0].durationSeconds == StimulusTestData.step)
        #expect(viewing.samples.allSatisfy { $0.pixel == Point2(160, 90) })
        #expect(viewing.blinkStarts == [0.5])
        #expect(viewing.pixelsPerDegree == 20)
        #expect(viewing.durationSeconds == 2)
    }
}
