#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GazeModel

/// A fixation: consecutive samples that stay together.
public struct Fixation: Sendable, Equatable {
    /// Index of its first and last sample in the input.
    public var firstIndex: Int
    public var lastIndex: Int
    /// Timestamps of its first and last sample (Unix seconds).
    public var startSeconds: Double
    public var endSeconds: Double
    /// Centroid in screen points.
    public var x: Double
    public var y: Double
    /// Dispersion (max x − min x) + (max y − min y), screen points.
    public var dispersionPoints: Double

    public var durationSeconds: Double { endSeconds - startSeconds }
    public var sampleCount: Int { lastIndex - firstIndex + 1 }
}

/// The movement a sample belongs to (SeeSo's FIXATION / SACCADE, plus gaps).
public enum EyeMovement: String, Sendable, CaseIterable {
    case fixation
    case saccade
    /// The sample is alone between gaps (face lost, blink): neither can be told.
    case unknown
}

/// Fixation detection: I-VT (velocity threshold) and I-DT (dispersion threshold), Salvucci & Goldberg 2000.
///
/// Thresholds are in degrees of visual angle, converted with `pointsPerDegree` (from a
/// `ScreenGeometry`, or 40 points per degree when the screen's size and distance are unknown).
/// Defaults: I-VT 30 °/s (Salvucci & Goldberg 2000; Olsen 2012); I-DT dispersion 1.5° (Pupil
/// Labs) over at least 80 ms (Pupil Labs' lower bound; Salvucci & Goldberg use 100 ms).
/// Samples more than `maximumGapSeconds` apart (face lost, blink) never share a fixation or a
/// velocity: the stream is cut there.
public struct FixationDetector: Sendable {
    public enum Method: String, Sendable, CaseIterable {
        case ivt
        case idt
    }

    public var method: Method
    public var pointsPerDegree: Double
    public var velocityThresholdDegreesPerSecond: Double
    public var dispersionThresholdDegrees: Double
    public var minimumDurationSeconds: Double
    public var maximumGapSeconds: Double

    /// The detector with every default: the thresholds a command uses unless told otherwise.
    public static let standard = FixationDetector()

    public init(method: Method = .idt, pointsPerDegree: Double = ScreenGeometry.assumedPointsPerDegree,
                velocityThresholdDegreesPerSecond: Double = 30, dispersionThresholdDegrees: Double = 1.5,
                minimumDurationSeconds: Double = 0.08, maximumGapSeconds: Double = 0.1) {
        self.method = method
        self.pointsPerDegree = pointsPerDegree
        self.velocityThresholdDegreesPerSecond = velocityThresholdDegreesPerSecond
        self.dispersionThresholdDegrees = dispersionThresholdDegrees
        self.minimumDurationSeconds = minimumDurationSeconds
        self.maximumGapSeconds = maximumGapSeconds
    }

    /// Fixations in time order, and a movement label for every sample.
    public func detect(_ samples: [GazeSample]) -> (fixations: [Fixation], labels: [EyeMovement]) {
        var fixations: [Fixation] = []
        var labels = [EyeMovement](repeating: .saccade, count: samples.count)
        for segment in segments(samples) {
            if segment.count == 1 { labels[segment.lowerBound] = .unknown; continue }
            switch method {
            case .idt: fixations += dispersionFixations(samples, segment)
            case .ivt: fixations += velocityFixations(samples, segment)
            }
        }
        for fixation in fixations {
            for index in fixation.firstIndex...fixation.lastIndex { labels[index] = .fixation }
        }
        return (fixations, labels)
    }

    /// Index ranges between gaps.
    func segments(_ samples: [GazeSample]) -> [Range<Int>] {
        guard !samples.isEmpty else { return [] }
        var result: [Range<Int>] = []
        var start = 0
        for index in 1..<samples.count where samples[index].timestampSeconds - samples[index - 1].timestampSeconds > maximumGapSeconds {
            result.append(start..<index)
            start = index
        }
        result.append(start..<samples.count)
        return result
    }

    private func makeFixation(_ samples: [GazeSample], _ range: ClosedRange<Int>) -> Fixation {
        var sumX = 0.0, sumY = 0.0
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        for index in range {
            let p = samples[index]
            sumX += p.x; sumY += p.y
            minX = Swift.min(minX, p.x); maxX = Swift.max(maxX, p.x)
            minY = Swift.min(minY, p.y); maxY = Swift.max(maxY, p.y)
        }
        let n = Double(range.count)
        return Fixation(firstIndex: range.lowerBound, lastIndex: range.upperBound,
                        startSeconds: samples[range.lowerBound].timestampSeconds,
                        endSeconds: samples[range.upperBound].timestampSeconds,
                        x: sumX / n, y: sumY / n, dispersionPoints: (maxX - minX) + (maxY - minY))
    }

    /// I-DT: grow a window while its dispersion stays under the threshold; keep windows of the minimum duration.
    private func dispersionFixations(_ samples: [GazeSample], _ segment: Range<Int>) -> [Fixation] {
        let threshold = dispersionThresholdDegrees * pointsPerDegree
        var result: [Fixation] = []
        var start = segment.lowerBound
        func dispersion(_ range: ClosedRange<Int>) -> Double {
            var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
            for index in range {
                minX = Swift.min(minX, samples[index].x); maxX = Swift.max(maxX, samples[index].x)
                minY = Swift.min(minY, samples[index].y); maxY = Swift.max(maxY, samples[index].y)
            }
            return (maxX - minX) + (maxY - minY)
        }
        while start < segment.upperBound {
            // The smallest window spanning the minimum duration.
            var end = start
            while end + 1 < segment.upperBound,
                  samples[end].timestampSeconds - samples[start].timestampSeconds < minimumDurationSeconds {
                end += 1
            }
            guard samples[end].timestampSeconds - samples[start].timestampSeconds >= minimumDurationSeconds else { break }
            if dispersion(start...end) <= threshold {
                while end + 1 < segment.upperBound, dispersion(start...(end + 1)) <= threshold { end += 1 }
                result.append(makeFixation(samples, start...end))
                start = end + 1
            } else {
                start += 1
            }
        }
        return result
    }

    /// I-VT: a fixation is a maximal chain of consecutive sample-to-sample steps slower than the
    /// threshold (k slow steps join k + 1 samples), kept if it lasts the minimum duration.
    private func velocityFixations(_ samples: [GazeSample], _ segment: Range<Int>) -> [Fixation] {
        let threshold = velocityThresholdDegreesPerSecond * pointsPerDegree
        func slowStep(_ index: Int) -> Bool {  // from index - 1 to index
            let a = samples[index - 1], b = samples[index]
            let dt = b.timestampSeconds - a.timestampSeconds
            guard dt > 0 else { return false }
            return ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot() / dt < threshold
        }
        var result: [Fixation] = []
        var chainStart: Int?
        for index in (segment.lowerBound + 1)...segment.upperBound {
            let slow = index < segment.upperBound && slowStep(index)
            if slow, chainStart == nil { chainStart = index - 1 }
            if !slow, let first = chainStart {
                let range = first...(index - 1)
                if samples[range.upperBound].timestampSeconds - samples[range.lowerBound].timestampSeconds >= minimumDurationSeconds {
                    result.append(makeFixation(samples, range))
                }
                chainStart = nil
            }
        }
        return result
    }
}
