import Foundation
import GazeModel
import Testing
@testable import GazeAnalysis

@Suite("Fixation detection")
struct FixationDetectorTests {
    /// A 60 Hz scan path: fixations at given points for given sample counts, joined by saccades of
    /// `saccadeSamples` evenly spaced samples; `jitter` alternates ± around each fixation point.
    static func path(_ fixations: [(x: Double, y: Double, samples: Int)], saccadeSamples: Int = 3,
                     jitter: Double = 0) -> (samples: [GazeSample], expected: [(first: Int, last: Int, x: Double, y: Double)]) {
        var samples: [GazeSample] = []
        var expected: [(Int, Int, Double, Double)] = []
        var t = 1000.0
        for (index, fixation) in fixations.enumerated() {
            if index > 0 {
                let from = fixations[index - 1]
                for step in 1...saccadeSamples {
                    let f = Double(step) / Double(saccadeSamples + 1)
                    samples.append(GazeSample(timestampSeconds: t, x: from.x + (fixation.x - from.x) * f, y: from.y + (fixation.y - from.y) * f, orientation: 0))
                    t += 1.0 / 60
                }
            }
            let first = samples.count
            for k in 0..<fixation.samples {
                let d = k % 2 == 0 ? jitter : -jitter
                samples.append(GazeSample(timestampSeconds: t, x: fixation.x + d, y: fixation.y - d, orientation: 0))
                t += 1.0 / 60
            }
            expected.append((first, samples.count - 1, fixation.x, fixation.y))
        }
        return (samples, expected)
    }

    static let layout: [(x: Double, y: Double, samples: Int)] = [(200, 150, 30), (800, 450, 12), (300, 700, 20)]

    @Test("both methods find constructed fixations exactly: first and last sample, centroid", arguments: FixationDetector.Method.allCases)
    func exact(method: FixationDetector.Method) {
        // Jitter of ±2 points (an even count of samples keeps the centroid on the point).
        let (samples, expected) = Self.path(Self.layout, jitter: 2)
        let (fixations, labels) = FixationDetector(method: method).detect(samples)
        #expect(fixations.count == 3)
        for (fixation, truth) in zip(fixations, expected) {
            #expect(fixation.firstIndex == truth.first, "\(method) first")
            #expect(fixation.lastIndex == truth.last, "\(method) last")
            #expect(fixation.startSeconds == samples[truth.first].timestampSeconds)
            #expect(fixation.endSeconds == samples[truth.last].timestampSeconds)
            #expect(abs(fixation.x - truth.x) < 1e-9 && abs(fixation.y - truth.y) < 1e-9)
        }
        // Saccade samples are labelled as such.
        #expect(labels[30..<33].allSatisfy { $0 == .saccade })
        #expect(labels[0..<30].allSatisfy { $0 == .fixation })
    }

    @Test("fixations shorter than the minimum duration are not reported")
    func minimumDuration() {
        // 4 samples at 60 Hz span 50 ms < 80 ms.
        let (samples, _) = Self.path([(100, 100, 30), (600, 600, 4), (100, 600, 30)])
        for method in FixationDetector.Method.allCases {
            let fixations = FixationDetector(method: method).detect(samples).fixations
            #expect(fixations.count == 2, "\(method)")
        }
    }

    @Test("a gap (face lost, blink) splits a fixation; each side stands alone")
    func gaps() {
        var (samples, _) = Self.path([(400, 300, 40)])
        // Remove 15 samples (250 ms) from the middle.
        samples.removeSubrange(15..<30)
        for method in FixationDetector.Method.allCases {
            let (fixations, _) = FixationDetector(method: method).detect(samples)
            #expect(fixations.map(\.sampleCount) == [15, 10], "\(method)")
        }
    }

    @Test("thresholds follow the viewing geometry")
    func geometry() {
        // 1920 points over 531 mm at 600 mm: about 37.9 points per degree.
        let geometry = ScreenGeometry(widthPoints: 1920, heightPoints: 1080, widthMillimetres: 531, heightMillimetres: 299,
                                      distanceMillimetres: 600)
        #expect(abs(geometry.pointsPerDegree - 1920.0 / 531 * 600 * tan(Double.pi / 180)) < 1e-9)
        // A 50-point spread is over 1.5° at 37.9 points/degree (56.8 points)? No: under. At 20 points/degree it is over.
        let (samples, _) = Self.path([(500, 500, 30)], jitter: 12.5)  // dispersion 50 points
        #expect(FixationDetector(method: .idt, pointsPerDegree: geometry.pointsPerDegree).detect(samples).fixations.count == 1)
        #expect(FixationDetector(method: .idt, pointsPerDegree: 20).detect(samples).fixations.isEmpty)
    }
}
