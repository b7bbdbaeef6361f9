import GazeModel
import Testing
@testable import StimulusAnalysis

@Suite struct StimulusTimelineTests {
    /// 3 s: the first second at pixel (40, 30), the second off the stimulus, the third half at
    /// (40, 30) and half at (80, 30); happy in the first second only; a blink at 2.25 s.
    func session(_ id: String = "a") throws -> StimulusViewing {
        let gaze = StimulusTestData.gaze(seconds: 3) { t in
            t < 1 ? Point2(40, 30) : t < 2 ? nil : t < 2.5 ? Point2(40, 30) : Point2(80, 30)
        }
        let blinks = [BlinkEvent(startSeconds: 1002.25, endSeconds: 1002.4, eyes: .both, kind: .blink, minimumOpenness: 0)]
        return try StimulusTestData.viewing(id, seconds: 3, gaze: gaze, expressions: StimulusTestData.expressions(seconds: 3) { $0 < 1 },
                                            blinks: blinks, smile: [(1000.5, 0.6), (1000.75, 0.8)])
    }

    @Test func eachBinHoldsItsSamplesGazeDispersionBlinksAndExpressions() throws {
        let rows = try StimulusTimeline.rows(try session(), binSeconds: 1)
        #expect(rows.map(\.stimulusSeconds) == [0, 1, 2])
        #expect(rows.map(\.samples) == [32, 32, 32])
        #expect(rows.map(\.onStimulusShare) == [1, 0, 1])
        #expect(rows[0].gazePixels == Point2(40, 30))
        #expect(rows[0].dispersionPixels == 0)
        #expect(rows[1].gazePixels == nil)
        #expect(rows[1].dispersionPixels == nil)
        // Half at x 40 and half at x 80: the median is 60, every sample 20 pixels from it.
        #expect(rows[2].gazePixels == Point2(60, 30))
        #expect(rows[2].dispersionPixels == 20)
        #expect(rows.map(\.blinks) == [0, 0, 1])
        #expect(rows.map(\.dominantExpression) == [.happy, .neutral, .neutral])
        #expect(abs(rows[0].expressionMeans![.happy] - 0.8) < 1e-12)
        #expect(rows[0].smile == 0.7)
        #expect(rows[1].smile == nil)
        // The fixation at (40, 30) starts at 0; the one at (80, 30) at 2.5 s (the one at (40, 30)
        // from 2 s starts there).
        #expect(rows.map(\.fixations) == [1, 0, 2])
    }

    @Test func binsOfHalfASecondAndAShortLastBin() throws {
        let rows = try StimulusTimeline.rows(try StimulusTestData.viewing("b", seconds: 1.25, gaze: StimulusTestData.gaze(seconds: 1.25) { _ in
            Point2(10, 10)
        }), binSeconds: 0.5)
        #expect(rows.map(\.stimulusSeconds) == [0, 0.5, 1])
        #expect(rows.map(\.samples) == [16, 16, 8])
        #expect(throws: StimulusError.self) { try StimulusTimeline.rows(try session(), binSeconds: 0) }
    }

    @Test func theGroupRowTakesTheMedianGazeTheParticipantsSpreadAndTheirDominantShares() throws {
        // Given three participants: two at (40, 30), one at (100, 30) in the first second; two happy, one not.
        let a = try session("a"), b = try session("b")
        let c = try StimulusTestData.viewing("c", seconds: 3, gaze: StimulusTestData.gaze(seconds: 3) { _ in Point2(100, 30) },
                                             expressions: StimulusTestData.expressions(seconds: 3) { _ in false })
        let group = StimulusTimeline.groupRows(try [a, b, c].map { try StimulusTimeline.rows($0, binSeconds: 1) })
        #expect(group.count == 3)
        #expect(group[0].session == nil)
        #expect(group[0].participants == 3)
        #expect(group[0].samples == 96)
        #expect(group[0].gazePixels == Point2(40, 30))
        #expect(group[0].dispersionPixels == 0)  // the median distance: two of three are at the median
        #expect(group[0].dominantExpression == .happy)
        #expect(group[0].dominantShares?[1] == 2.0 / 3)
        #expect(group[0].dominantShares?[0] == 1.0 / 3)
        // In the second bin only c is on the stimulus.
        #expect(group[1].onStimulusShare == 1.0 / 3)
        #expect(group[1].gazePixels == Point2(100, 30))
        #expect(group[1].dominantShares?[0] == 1)
    }
}
