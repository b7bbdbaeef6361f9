import GazeModel
import Testing
@testable import StimulusAnalysis

@Suite struct HighlightFinderTests {
    /// 10 s; happy from `from` to `to`; gaze at `pixel`.
    func participant(_ id: String, happy: Range<Double>?, pixel: Point2 = Point2(250, 40)) throws -> StimulusViewing {
        try StimulusTestData.viewing(id, seconds: 10, gaze: StimulusTestData.gaze(seconds: 10) { _ in pixel },
                                     expressions: StimulusTestData.expressions(seconds: 10) { happy?.contains($0) ?? false })
    }

    @Test func theIntervalMostParticipantsSmileThroughIsFoundWithACropHoldingTheirGaze() throws {
        // Given two of three participants happy from 3 s to 6 s (one also from 8 s to 9 s: too short),
        // all looking at pixel (250, 40).
        let viewings = [try participant("a", happy: 3..<6), try participant("b", happy: 3..<6),
                        try participant("c", happy: 8..<9)]
        let found = try HighlightFinder.highlights(viewings, placement: try StimulusTestData.placement())
        #expect(found.count == 1)
        let highlight = try #require(found.first)
        #expect(abs(highlight.startSeconds - 3) < 1e-9 && abs(highlight.endSeconds - 6) < 1e-9)
        #expect(highlight.participants == 2)
        #expect(abs(highlight.expressionProbability - 0.8) < 1e-12)
        #expect(highlight.dispersionPixels == 0)
        // The crop has the stimulus's aspect, half its size (the least), holds the gaze and stays inside.
        #expect(highlight.cropWidth == 160 && highlight.cropHeight == 90)
        #expect(highlight.cropX == 160 && highlight.cropY == 0)
    }

    @Test func aVerticalCropAndTheThresholdsAreSettable() throws {
        let viewings = [try participant("a", happy: 3..<6), try participant("b", happy: 3..<6), try participant("c", happy: 8..<9)]
        var criteria = HighlightCriteria()
        criteria.cropAspect = 9.0 / 16
        let vertical = try #require(try HighlightFinder.highlights(viewings, placement: try StimulusTestData.placement(),
                                                                   criteria: criteria).first)
        // The largest 9:16 crop is 101×180; at least half of it, holding (250, 40) ± 2° (40 pixels).
        #expect(vertical.cropHeight == 142 && vertical.cropWidth == 80)
        #expect(vertical.cropX <= 210 && vertical.cropX + vertical.cropWidth >= 290 && vertical.cropY == 0)
        criteria.minimumSeconds = 1
        criteria.majority = 0.3
        let lenient = try HighlightFinder.highlights(viewings, placement: try StimulusTestData.placement(), criteria: criteria)
        #expect(lenient.map(\.participants) == [2, 1])
        criteria.expression = .surprise
        #expect(try HighlightFinder.highlights(viewings, placement: try StimulusTestData.placement(), criteria: criteria).isEmpty)
    }

    @Test func scatteredGazeIsNoHighlight() throws {
        // Given both happy participants looking at opposite corners.
        let viewings = [try participant("a", happy: 3..<6, pixel: Point2(10, 10)),
                        try participant("b", happy: 3..<6, pixel: Point2(310, 170))]
        #expect(try HighlightFinder.highlights(viewings, placement: try StimulusTestData.placement()).isEmpty)
        var criteria = HighlightCriteria()
        criteria.maximumDispersionPixels = 200
        #expect(try HighlightFinder.highlights(viewings, placement: try StimulusTestData.placement(), criteria: criteria).count == 1)
    }
}
