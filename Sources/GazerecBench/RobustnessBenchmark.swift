import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import JSONStream

/// Feature robustness: what a disturbance drawn on a clip's frames (round rims with a screen's
/// reflection, a hand at the chin) does to every linear feature set's raw features and to the
/// landmarks an eye patch could be aligned to, beside how much each varies across the clean clip.
///
/// Both files go through the real vision pipeline (stabilised landmarks, patches, pose) frame by
/// frame; frame `i` of the drawn copy is compared with frame `i` of the clean one. Per set and
/// feature: its standard deviation over the clean frames the set reads (`spread`), and over the
/// frames both copies read the mean (`offset`: what a calibration made with the disturbance
/// present learns away) and standard deviation (`varying`: what it cannot) of drawn − clean.
/// Per feature also the robust stand-ins of the clean spread and of the varying part (1.4826 × the
/// median absolute deviation), which a few frames where the fit slides off barely move. Per landmark
/// group: the same in pixels (2-D, averaged over the group's points; the varying part's median
/// length beside its RMS), with the clean eyes' mean width. One JSON object per drawn file (Scripts/bench_feature_robustness.py reads them).
enum RobustnessBenchmark {
    /// Frames either side that `steadiedCorners` averages.
    static let steadyFrames = 5
    /// The landmark groups measured: the patch's alignment points and the points a candidate
    /// could align by instead.
    static let pointGroups: [(String, [Int])] = [
        ("corners", [36, 39, 42, 45]), ("eyeContours", Array(36...47)), ("brows", Array(17...26)),
        ("noseBridge", [27, 28, 29, 30]), ("noseBase", [31, 32, 33, 34, 35]), ("jaw", Array(0...16)),
        ("mouth", Array(48...67)),
    ]

    static func run(modelPath: String, clean: String, drawn: [String]) throws {
        let model = try LandmarkModel.shared(path: modelPath)
        let reference = try frames(of: clean, model: model)
        for path in drawn {
            let disturbed = try frames(of: path, model: model)
            let sets = GazeFeatureSet.allCases.filter { !$0.isPolynomial }.map { ($0.rawValue, setReport($0, reference, disturbed)) }
            let value = JSONValue.object([
                ("clean", .string(clean)), ("drawn", .string(path)), ("frames", .number(Double(reference.count))),
                ("drawnFrames", .number(Double(disturbed.count))), ("sets", .object(sets)),
                ("points", pointReport(reference, disturbed)),
            ])
            let sink = MemoryByteSink()
            let writer = JSONWriter(sink: sink, pretty: false)
            try writer.value(value)
            try writer.flush()
            print(sink.text)
        }
    }

    /// Every frame's features (nil without a face), in order.
    static func frames(of path: String, model: LandmarkModel) throws -> [GazeFeatures?] {
        let source = try VideoFileSource(path: path)
        let pipeline = try FramePipeline(model: model, width: source.width, height: source.height)
        var result: [GazeFeatures?] = []
        while let frame = try source.nextFrame() {
            let (features, _) = try pipeline.process(frame)
            result.append(GazeFeatures(features.measurement))
        }
        return result
    }

    /// Running mean and sum of squared deviations per value (Welford).
    struct Moments {
        var count = 0
        var mean: [Double], squares: [Double]

        init(_ size: Int) {
            mean = [Double](repeating: 0, count: size)
            squares = mean
        }

        mutating func add(_ values: [Double]) {
            count += 1
            for k in values.indices {
                let delta = values[k] - mean[k]
                mean[k] += delta / Double(count)
                squares[k] += delta * (values[k] - mean[k])
            }
        }

        var deviations: [Double] { squares.map { count > 1 ? ($0 / Double(count - 1)).squareRoot() : 0 } }
    }

    /// One set: its parts, and per feature the clean spread, the disturbance's offset and its varying part.
    static func setReport(_ set: GazeFeatureSet, _ clean: [GazeFeatures?], _ drawn: [GazeFeatures?]) -> JSONValue {
        var spread = Moments(set.featureCount), change = Moments(set.featureCount)
        var cleanValues: [[Double]] = [], changes: [[Double]] = []
        for index in clean.indices {
            guard let c = clean[index], c.trackingNormal, let a = set.rawFeatures(c) else { continue }
            spread.add(a)
            cleanValues.append(a)
            guard index < drawn.count, let d = drawn[index], d.trackingNormal, let b = set.rawFeatures(d) else { continue }
            changes.append(zip(b, a).map { $0 - $1 })
            change.add(changes[changes.count - 1])
        }
        func numbers(_ values: [Double]) -> JSONValue { .array(values.map { .number($0.isFinite ? $0 : 0) }) }
        let parts: [JSONValue] = layout(of: set).map { .array([.string($0.0), .number(Double($0.1))]) }
        return .object([("cleanFrames", .number(Double(spread.count))), ("pairedFrames", .number(Double(change.count))),
                        ("parts", .array(parts)), ("spread", numbers(spread.deviations)), ("offset", numbers(change.mean)),
                        ("varying", numbers(change.deviations)),
                        ("robustSpread", numbers(medianDeviations(cleanValues, count: set.featureCount))),
                        ("robustVarying", numbers(medianDeviations(changes, count: set.featureCount)))])
    }

    /// Per value: the median absolute deviation from its median over `rows`, × 1.4826 (a standard
    /// deviation's robust stand-in: a tenth of the frames sliding off changes it little).
    static func medianDeviations(_ rows: [[Double]], count: Int) -> [Double] {
        guard !rows.isEmpty else { return [Double](repeating: 0, count: count) }
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
        return (0..<count).map { k in
            let column = rows.map { $0[k] }
            let centre = median(column)
            return 1.4826 * median(column.map { abs($0 - centre) })
        }
    }

    /// The parts of a set's features in order, as (name, count): `eyeLine` (roll, the eyes' distance
    /// and midpoint), `pose` (yaw, pitch), `shape`, `patches`, `detail` (what a candidate adds).
    static func layout(of set: GazeFeatureSet) -> [(String, Int)] {
        let head: [(String, Int)] = [("eyeLine", 4), ("pose", 2)]
        let patches = ("patches", 2 * EyeAppearance.patchPixels)
        switch set.rawValue {
        case "patches", "patchClipped", "patchRank": return head + [patches]
        case "appearance", "appearanceClipped": return head + [("shape", 102), patches]
        case "appearanceUpper": return head + [("shape", 62), patches]
        case "patchesNoPose": return [("eyeLine", 4), patches]
        case "appearanceNoPose": return [("eyeLine", 4), ("shape", 102), patches]
        case "patchMean": return head + [("patches", EyeAppearance.patchPixels)]
        case "shape": return head + [("shape", 102)]
        case "patchGradients", "patchIris": return head + [patches, ("detail", set.featureCount - 262)]
        default: return candidateLayout(of: set)
        }
    }

    /// The parts of the candidate sets added for glasses and hands.
    static func candidateLayout(of set: GazeFeatureSet) -> [(String, Int)] {
        let patches = ("patches", 2 * EyeAppearance.patchPixels)
        switch set.rawValue {
        case "patchesNoseFrame": return [("noseLine", 4), ("nosePose", 2), patches]
        case "appearanceNoseFrame": return [("noseLine", 4), ("nosePose", 2), ("shape", 62), patches]
        case "patchContrast", "patchInner": return [("eyeLine", 4), ("pose", 2), ("patches", set.featureCount - 6)]
        case "appearanceContrast": return [("eyeLine", 4), ("pose", 2), ("shape", 102), patches]
        default: return [("all", set.featureCount)]
        }
    }
}

extension RobustnessBenchmark {
    /// Each landmark group's clean spread, and its disturbance's offset and varying part, in
    /// pixels; the eye corners' midpoints (where each patch is centred) and the corners averaged
    /// over `steadyFrames` frames either side (a temporally steadied alignment) beside them.
    static func pointReport(_ clean: [GazeFeatures?], _ drawn: [GazeFeatures?]) -> JSONValue {
        let a = clean.map { $0?.appearance }, b = (0..<clean.count).map { $0 < drawn.count ? drawn[$0]?.appearance : nil }
        var tracks: [(String, [[Point2?]], [[Point2?]])] = pointGroups.map { name, indices in
            (name, indices.map { i in a.map { $0?.landmark(i) } }, indices.map { i in b.map { $0?.landmark(i) } })
        }
        func midpoints(_ frames: [EyeAppearance?]) -> [[Point2?]] {
            [(36, 39), (42, 45)].map { i, j in frames.map { $0.map { ($0.landmark(i) + $0.landmark(j)) / 2 } } }
        }
        tracks.append(("cornerMidpoints", midpoints(a), midpoints(b)))
        tracks.append(("steadiedCorners", tracks[0].1.map(steadied), tracks[0].2.map(steadied)))
        var members: [(String, JSONValue)] = tracks.map { name, c, d in (name, groupStatistics(c, d)) }
        let widths = a.compactMap { $0.map { (($0.landmark(39) - $0.landmark(36)).length + ($0.landmark(45) - $0.landmark(42)).length) / 2 } }
        members.append(("eyeWidthPixels", .number(widths.isEmpty ? 0 : widths.reduce(0, +) / Double(widths.count))))
        return .object(members)
    }

    /// A point's track averaged over the frames with it within `steadyFrames` either side.
    static func steadied(_ track: [Point2?]) -> [Point2?] {
        track.indices.map { index in
            guard track[index] != nil else { return nil }
            let near = track[max(0, index - steadyFrames)...min(track.count - 1, index + steadyFrames)].compactMap { $0 }
            return near.reduce(Point2(0, 0), +) / Double(near.count)
        }
    }

    /// Over a group's points (mean): the clean track's RMS distance from its mean (`spreadPixels`),
    /// and of drawn − clean over the frames with both the length of its mean (`offsetPixels`) and
    /// its RMS distance from that mean (`varyingPixels`).
    static func groupStatistics(_ clean: [[Point2?]], _ drawn: [[Point2?]]) -> JSONValue {
        var spread = 0.0, offset = 0.0, varying = 0.0, typical = 0.0, paired = 0
        for (c, d) in zip(clean, drawn) {
            let present = c.compactMap { $0 }
            guard !present.isEmpty else { continue }
            let centre = present.reduce(Point2(0, 0), +) / Double(present.count)
            spread += (present.map { ($0 - centre).dot($0 - centre) }.reduce(0, +) / Double(present.count)).squareRoot()
            let changes = zip(c, d).compactMap { p, q -> Point2? in
                guard let p, let q else { return nil }
                return q - p
            }
            paired = changes.count
            guard !changes.isEmpty else { continue }
            let mean = changes.reduce(Point2(0, 0), +) / Double(changes.count)
            offset += mean.length
            varying += (changes.map { ($0 - mean).dot($0 - mean) }.reduce(0, +) / Double(changes.count)).squareRoot()
            let lengths = changes.map { ($0 - mean).length }.sorted()
            typical += lengths[lengths.count / 2]
        }
        let points = Double(max(clean.count, 1))
        return .object([("pairedFrames", .number(Double(paired))), ("spreadPixels", .number(spread / points)),
                        ("offsetPixels", .number(offset / points)), ("varyingPixels", .number(varying / points)),
                        ("medianVaryingPixels", .number(typical / points))])
    }
}
