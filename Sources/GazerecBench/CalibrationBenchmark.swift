import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import JSONStream
import SessionStore

/// The calibration benchmark: the cost of fitting a calibration (5, 9, 13 targets) and of mapping
/// one frame's features to a gaze point, beside the per-frame vision pipeline on the same clip.
enum CalibrationBenchmark {
    static func run(clip: String, modelPath: String) throws {
        let (features, pipelineTimes) = try measure(clip: clip, modelPath: modelPath)
        let mapping = try timeFits(features.filter(CalibrationFitter.isUsable))
        try timeMapping(mapping, features: features, pipelineTimes: pipelineTimes)
    }

    /// 1. Real features, and the per-frame pipeline cost they took (decode excluded).
    static func measure(clip: String, modelPath: String) throws -> (features: [GazeFeatures], pipelineTimes: [Double]) {
        let model = try LandmarkModel.shared(path: modelPath)
        let source = try VideoFileSource(path: clip)
        var frames: [Frame] = []
        while let frame = try source.nextFrame() { frames.append(frame) }
        let pipeline = try FramePipeline(model: model, width: source.width, height: source.height)
        var pipelineTimes: [Double] = []
        var features: [GazeFeatures] = []
        for frame in frames {
            let start = VisionBenchmark.now()
            let (frameFeatures, _) = try pipeline.process(frame)
            pipelineTimes.append(VisionBenchmark.milliseconds(since: start))
            if let sample = GazeFeatures(frameFeatures.measurement) { features.append(sample) }
        }
        let usable = features.filter(CalibrationFitter.isUsable)
        print("\((clip as NSString).lastPathComponent): \(source.width)×\(source.height), \(frames.count) frames, "
              + "\(usable.count) with usable eye features")
        return (features, pipelineTimes)
    }

    /// 2. Fits: each target takes the next 40 real frames (timing does not depend on where the
    ///    participant looked, only on how many samples and targets there are).
    static func timeFits(_ usable: [GazeFeatures]) throws -> GazeMapping {
        print("  step                                   runs    median ms   p95 ms")
        var mapping: GazeMapping?
        for layout in CalibrationLayout.allCases {
            let perTarget = 40
            let needed = layout.rawValue * perTarget
            guard usable.count >= needed else { continue }
            let points = layout.calibrationFractions.enumerated().map { index, fraction in
                CalibrationPointSamples(target: Point2(fraction.x * 1920, fraction.y * 1080),
                                        samples: Array(usable[(index * perTarget)..<((index + 1) * perTarget)]))
            }
            var times: [Double] = []
            for _ in 0..<30 {
                let start = VisionBenchmark.now()
                mapping = try CalibrationFitter().fit(points).mapping
                times.append(VisionBenchmark.milliseconds(since: start))
            }
            VisionBenchmark.row("fit, \(layout.rawValue) targets × \(perTarget) samples", times, width: 38)
        }
        guard let mapping else { throw CalibrationError.tooFewPoints(have: 0, needed: 5) }
        return mapping
    }

    /// 3. Mapping: every real sample, many times over, so the clock resolution does not matter.
    static func timeMapping(_ mapping: GazeMapping, features: [GazeFeatures], pipelineTimes: [Double]) throws {
        let rounds = max(1, 2_000_000 / max(features.count, 1))
        var sink = 0.0
        var perSample: [Double] = []
        for _ in 0..<7 {
            let start = VisionBenchmark.now()
            for _ in 0..<rounds {
                for sample in features { if let point = mapping.map(sample) { sink += point.x } }
            }
            perSample.append(VisionBenchmark.milliseconds(since: start) / Double(rounds * features.count))
        }
        let mapMilliseconds = VisionBenchmark.median(perSample)
        var smoothedPerSample: [Double] = []
        for _ in 0..<7 {
            var smoother = GazeSmoother(.oneEuro())
            var time = 0.0
            let start = VisionBenchmark.now()
            for _ in 0..<rounds {
                for sample in features {
                    time += 1.0 / 30
                    if let point = mapping.map(sample) { sink += smoother.smooth(point, timeSeconds: time).x }
                }
            }
            smoothedPerSample.append(VisionBenchmark.milliseconds(since: start) / Double(rounds * features.count))
        }
        let smoothedMilliseconds = VisionBenchmark.median(smoothedPerSample)
        print(String(format: "  map one frame's features to gaze      %7d   %.6f ms (%.0f ns, %d rounds of the clip)", rounds * features.count,
                     mapMilliseconds, mapMilliseconds * 1e6, rounds))
        print(String(format: "  map + 1€ smoothing                    %7d   %.6f ms (%.0f ns)", rounds * features.count,
                     smoothedMilliseconds, smoothedMilliseconds * 1e6))
        VisionBenchmark.row("vision pipeline per frame (same clip)", pipelineTimes, width: 38)
        let pipelineMedian = VisionBenchmark.median(pipelineTimes)
        print(String(format: "  mapping / vision pipeline: %.5f %% of a frame's cost; %.6f ms per sample, %.6f ms with "
                     + "smoothing (target ≤ 0.05 ms)", 100 * mapMilliseconds / pipelineMedian, mapMilliseconds, smoothedMilliseconds))
        print(String(format: "  recalibrating a 1-hour 60 fps session (216 000 frames) maps in ≈ %.0f ms", mapMilliseconds * 216_000))
        if sink == 42 { print("") }  // keeps the mapping loop from being optimised away
    }
}
