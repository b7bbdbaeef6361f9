import Foundation
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import JSONStream

/// The vision benchmark: per-frame pipeline cost on a clip, split into detector and tracked frames,
/// beside the bare cost of dlib's shape predictor on the same frames and boxes, and decoding.
enum VisionBenchmark {
    /// Every timing the benchmark takes, in milliseconds, one list per figure it prints.
    struct Timings {
        var decode: [Double] = [], detector: [Double] = [], tracked: [Double] = [], missing: [Double] = []
        var bare: [Double] = [], dlib: [Double] = [], warm: [Double] = []
        var face: [Double] = [], features: [Double] = [], pupils: [Double] = [], pose: [Double] = [], patches: [Double] = []
        var hogBaseline: [Double] = [], hogWide: [Double] = []
    }

    static func run(clip: String, modelPath: String) throws {
        let loadStart = now()
        let model = try LandmarkModel.shared(path: modelPath)
        let loadSeconds = seconds(since: loadStart)
        let dlibStart = now()
        let dlib = try DlibShapePredictor(path: modelPath)
        let dlibLoadSeconds = seconds(since: dlibStart)

        var timings = Timings()
        let source = try VideoFileSource(path: clip)
        let frames = try decode(source, into: &timings)
        let fitBoxes = try timePipeline(frames, model: model, dlib: dlib, size: (source.width, source.height), into: &timings)
        timeRepeatedFit(frames, fitBoxes, model: model, into: &timings)
        try timeStages(frames, model: model, size: (source.width, source.height), into: &timings)
        try timeDetectors(frames, width: source.width, into: &timings)

        let name = (clip as NSString).lastPathComponent
        print("\(name): \(source.width)×\(source.height), \(frames.count) frames; model load \(format(loadSeconds * 1000)) ms "
              + "(dlib's own: \(format(dlibLoadSeconds * 1000)) ms)")
        report(timings)
    }

    /// 1. Decodes everything first (timed on its own).
    static func decode(_ source: VideoFileSource, into timings: inout Timings) throws -> [Frame] {
        var frames: [Frame] = []
        while true {
            let start = now()
            guard let frame = try source.nextFrame() else { break }
            timings.decode.append(milliseconds(since: start))
            frames.append(frame)
        }
        return frames
    }

    /// 2. The whole pipeline per frame (decode excluded), and right after it, on the same frame and
    ///    box (same cache state), the bare shape predictor. Returns the frames' fitted boxes.
    static func timePipeline(_ frames: [Frame], model: LandmarkModel, dlib: DlibShapePredictor, size: (Int, Int),
                             into timings: inout Timings) throws -> [(frame: Int, box: FaceBox)] {
        let pipeline = try FramePipeline(model: model, width: size.0, height: size.1)
        var fitBoxes: [(frame: Int, box: FaceBox)] = []
        for (index, frame) in frames.enumerated() {
            let start = now()
            let (features, _) = try pipeline.process(frame)
            let elapsed = milliseconds(since: start)
            switch features.face?.detected {
            case true?: timings.detector.append(elapsed)
            case false?: timings.tracked.append(elapsed)
            case nil: timings.missing.append(elapsed)
            }
            if features.face != nil, let box = pipeline.tracker.lastFitBox {
                fitBoxes.append((index, box))
                let bareStart = now()
                _ = model.fit(frame.image, box: box)
                timings.bare.append(milliseconds(since: bareStart))
                let dlibStart = now()
                _ = try dlib.fit(frame.image, box: box)
                timings.dlib.append(milliseconds(since: dlibStart))
            }
        }
        return fitBoxes
    }

    /// 2b. The middle fit repeated on its frame and box: the leaves it reads stay in the caches, so
    ///     this is the fit with few waits for memory.
    static func timeRepeatedFit(_ frames: [Frame], _ fitBoxes: [(frame: Int, box: FaceBox)], model: LandmarkModel,
                                into timings: inout Timings) {
        guard !fitBoxes.isEmpty else { return }
        let (index, box) = fitBoxes[fitBoxes.count / 2]
        for _ in 0..<300 {
            let start = now()
            _ = model.fit(frames[index].image, box: box)
            timings.warm.append(milliseconds(since: start))
        }
    }

    /// 3. The stages of a tracked frame, each timed on its own on the same frames: the face stage
    ///    (landmark fit, confidence, stabilisation, next box) and the eye features' parts.
    static func timeStages(_ frames: [Frame], model: LandmarkModel, size: (Int, Int), into timings: inout Timings) throws {
        let tracker = try FaceTracker(model: model)
        let intrinsics = CameraIntrinsics(width: size.0, height: size.1)
        var extractor = EyeFeatureExtractor(intrinsics: intrinsics)
        let locator = PupilLocator()
        let estimator = HeadPoseEstimator(intrinsics: intrinsics)
        var previousPose: HeadPose?
        for frame in frames {
            var start = now()
            let face = try tracker.process(frame.image, timeSeconds: frame.timestampSeconds)
            let faceTime = milliseconds(since: start)
            start = now()
            _ = extractor.process(frameIndex: frame.index, timestampSeconds: frame.timestampSeconds, image: frame.image, face: face)
            let featureTime = milliseconds(since: start)
            guard let face, !face.detected else { continue }
            timings.face.append(faceTime)
            timings.features.append(featureTime)
            start = now()
            for eye in Eye.allCases { _ = locator.locate(in: frame.image, contour: face.landmarks.contour(of: eye)) }
            timings.pupils.append(milliseconds(since: start))
            start = now()
            previousPose = estimator.estimate(face.landmarks, previous: previousPose)
            timings.pose.append(milliseconds(since: start))
            start = now()
            _ = EyePatchSampler.patches(in: frame.image, landmarks: face.landmarks)
            timings.patches.append(milliseconds(since: start))
        }
    }

    /// 4. dlib's HOG detector on the first stage's shrunk frame (every 10th frame), its AVX2 build
    ///    beside the baseline build, alternating frame by frame.
    static func timeDetectors(_ frames: [Frame], width: Int, into timings: inout Timings) throws {
        let wideDetector = try FaceDetector(), baselineDetector = try FaceDetector()
        baselineDetector.dropWideVectors()
        let factor = max(1, Int((Double(width) / 400).rounded()))
        for frame in frames where frame.index % 10 == 0 {
            let shrunk = frame.image.downscaled(by: factor)
            for (detector, isWide) in [(baselineDetector, false), (wideDetector, true)] where !isWide || detector.usesWideVectors {
                let start = now()
                _ = try detector.detect(shrunk)
                if isWide { timings.hogWide.append(milliseconds(since: start)) } else { timings.hogBaseline.append(milliseconds(since: start)) }
            }
        }
    }

    static func report(_ timings: Timings) {
        print("  stage                        frames   median ms   p95 ms")
        row("decode (FFmpeg, 1 thread)", timings.decode)
        row("pipeline, detector frames", timings.detector)
        row("pipeline, tracked frames", timings.tracked)
        if !timings.missing.isEmpty { row("pipeline, no face", timings.missing) }
        row("pipeline, all frames", timings.detector + timings.tracked + timings.missing)
        row("  face: fit, stabilise, box", timings.face)
        row("  eye features, all", timings.features)
        row("    pupils (both eyes)", timings.pupils)
        row("    head pose (PnP)", timings.pose)
        row("    eye patches", timings.patches)
        row("bare landmark fit", timings.bare)
        row("dlib's shape_predictor", timings.dlib)
        if !timings.warm.isEmpty { row("bare fit, one fit repeated", timings.warm) }
        row("HOG on shrunk frame, baseline", timings.hogBaseline)
        if !timings.hogWide.isEmpty {
            row("HOG on shrunk frame, AVX2", timings.hogWide)
            print("  HOG AVX2 build / baseline build: \(format(median(timings.hogWide) / max(median(timings.hogBaseline), 1e-9)))× (medians)")
        }
        let ratio = median(timings.tracked) / max(median(timings.bare), 1e-9)
        print("  bare landmark fit / dlib's: \(format(median(timings.bare) / max(median(timings.dlib), 1e-9)))× (medians)")
        print("  tracked median / bare landmark median: \(format(ratio))× (target ≤ 2×); "
              + "tracked p95 \(format(percentile(timings.tracked, 0.95))) ms (target ≤ 8 ms)")
    }

    static func row(_ name: String, _ values: [Double], width: Int = 28) {
        print("  " + name.padding(toLength: width, withPad: " ", startingAt: 0)
              + String(format: " %6d   %9.3f   %6.3f", values.count, median(values), percentile(values, 0.95)))
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    static func milliseconds(since start: UInt64) -> Double { Double(now() - start) / 1e6 }
    static func seconds(since start: UInt64) -> Double { Double(now() - start) / 1e9 }
    static func median(_ values: [Double]) -> Double { percentile(values, 0.5) }
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }
    static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
