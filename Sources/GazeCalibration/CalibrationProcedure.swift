import GazeCore
import GazeModel

/// One target of a calibration run.
public struct CalibrationTarget: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Its samples fit the mapping.
        case calibration
        /// Its samples measure the fitted mapping's accuracy.
        case validation
    }

    public var kind: Kind
    /// Screen points, origin top-left.
    public var position: Point2
    /// Scripted runs: when the target is on screen, seconds from the first frame.
    public var startSeconds: Double?
    public var endSeconds: Double?

    public init(kind: Kind, position: Point2, startSeconds: Double? = nil, endSeconds: Double? = nil) {
        self.kind = kind
        self.position = position
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
    }
}

/// Everything a finished calibration produced.
public struct CalibrationOutcome: Sendable {
    public var fit: CalibrationFit
    /// One line per calibration target the fit went on without: which, and why
    /// (`calibration point 3 at (960, 540) has 2 usable samples of 36 (needs 8): the eyes were closed in …`).
    public var skippedReasons: [Int: String] = [:]
    public var calibrationSamples: [CalibrationPointSamples]
    public var validationSamples: [CalibrationPointSamples]
    public var validation: ValidationReport
}

/// The calibration procedure as a state machine driven by frames and keys (no clock of its own:
/// time is the frames' timestamps), so the terminal interface, scripted runs and tests share it.
///
/// Interactive: instructions → Space → each target in turn: `settleSeconds` for the eyes to land,
/// then `collectSeconds` of frames with a face (the point pauses while the face is lost). A target
/// whose usable samples are too few is offered once again: Space shows it again, S skips it; when
/// it falls short a second time it is skipped. After the calibration targets the mapping is fitted
/// (going on without skipped targets when enough remain, `CalibrationFitter`); then the validation
/// targets; then `finished`. Esc aborts at any time.
/// Scripted: every target has its own time window; frames inside it after the settle time are
/// collected; the run ends after the last window (or when the input ends). Targets with too few
/// usable samples are skipped by the fit.
public struct CalibrationProcedure: Sendable {
    public enum Phase: Sendable, Equatable {
        case instructions
        /// Showing target `index` of `targets`.
        case target(index: Int)
        /// Target `index` fell short; Space shows it again, S skips it; `reason` says why.
        case retry(index: Int, reason: String)
        /// The fit failed in a way no single retry fixes; Space starts over.
        case failed(reason: String)
        case finished
        case aborted
    }

    public let targets: [CalibrationTarget]
    public let scripted: Bool
    public var settleSeconds: Double
    public var collectSeconds: Double
    public var fitter: CalibrationFitter
    public var geometry: ScreenGeometry?

    public private(set) var phase: Phase = .instructions
    /// 0…1 for the current target's collection.
    public private(set) var progress = 0.0
    /// Whether the current target is waiting for the face to come back.
    public private(set) var faceLost = false
    /// Whether a face was seen in the latest frame.
    public private(set) var faceVisible = false
    public private(set) var outcome: CalibrationOutcome?
    public private(set) var fitted: CalibrationFit?
    /// The validation measured at the end (of a calibration, or of a validation-only run).
    public private(set) var validation: ValidationReport?
    /// A validation-only run checks this existing mapping instead of fitting one.
    public let existingMapping: GazeMapping?

    private var samples: [[GazeFeatures]]
    private var tallies: [FrameTally]
    /// Targets already offered a second showing.
    private var offered: Set<Int> = []
    /// Scripted: seconds from the first frame to the last one seen.
    private var lastRelativeSeconds: Double?
    private var ended = false
    private var shownAt: Double?
    private var collectedSeconds = 0.0
    private var lastFrameTime: Double?
    private var firstFrameTime: Double?

    /// Seconds after a target appears before samples are collected, unless a script or the caller
    /// says otherwise: the eyes land on a new target within about half a second.
    public static let defaultSettleSeconds = 0.6
    /// Seconds of samples collected per target when keys drive the run.
    public static let defaultCollectSeconds = 1.2

    public init(targets: [CalibrationTarget], scripted: Bool, settleSeconds: Double = defaultSettleSeconds,
                collectSeconds: Double = defaultCollectSeconds,
                fitter: CalibrationFitter = CalibrationFitter(), geometry: ScreenGeometry? = nil) {
        precondition(!targets.isEmpty)
        self.targets = targets
        self.scripted = scripted
        self.settleSeconds = settleSeconds
        self.collectSeconds = collectSeconds
        self.fitter = fitter
        self.geometry = geometry
        existingMapping = nil
        samples = Array(repeating: [], count: targets.count)
        tallies = Array(repeating: FrameTally(), count: targets.count)
        if scripted { phase = .target(index: 0) }
    }

    /// A validation-only run: every target measures `mapping` (drift since calibrating); no fit.
    public init(validating mapping: GazeMapping, targets: [CalibrationTarget], scripted: Bool,
                settleSeconds: Double = defaultSettleSeconds, collectSeconds: Double = defaultCollectSeconds,
                minimumSamplesPerPoint: Int = CalibrationFitter.Configuration().minimumSamplesPerPoint,
                geometry: ScreenGeometry? = nil) {
        precondition(!targets.isEmpty)
        self.targets = targets.map { CalibrationTarget(kind: .validation, position: $0.position, startSeconds: $0.startSeconds,
                                                       endSeconds: $0.endSeconds) }
        self.scripted = scripted
        self.settleSeconds = settleSeconds
        self.collectSeconds = collectSeconds
        fitter = CalibrationFitter(minimumSamplesPerPoint: minimumSamplesPerPoint)
        self.geometry = geometry
        existingMapping = mapping
        samples = Array(repeating: [], count: targets.count)
        tallies = Array(repeating: FrameTally(), count: targets.count)
        if scripted { phase = .target(index: 0) }
    }

    /// The calibration and validation targets of a layout on a screen of this size (points).
    public static func layoutTargets(_ layout: CalibrationLayout, width: Double, height: Double) -> [CalibrationTarget] {
        layout.calibrationFractions.map { CalibrationTarget(kind: .calibration, position: Point2($0.x * width, $0.y * height)) }
            + layout.validationFractions.map { CalibrationTarget(kind: .validation, position: Point2($0.x * width, $0.y * height)) }
    }

    public var currentIndex: Int? {
        switch phase {
        case .target(let index), .retry(let index, _): return index
        default: return nil
        }
    }

    /// Whether the current target is still in its settle time.
    public private(set) var settling = false

    /// Whether the run is over: finished, aborted, or (scripted, where nothing can be retried) failed.
    public var isDone: Bool {
        switch phase {
        case .finished, .aborted: return true
        case .failed: return scripted
        default: return false
        }
    }

    /// Number of usable samples collected so far for target `index` (its closed-eye frames
    /// judged together, `EyeClosureJudge`).
    public func usableCount(_ index: Int) -> Int {
        fitter.usableSamples(samples[index]).count
    }

    // MARK: - Keys

    /// Space: start (instructions), show a target that fell short again, or start over after a failed fit.
    public mutating func pressSpace() {
        guard !scripted else { return }
        switch phase {
        case .instructions: show(0)
        case .retry(let index, _):
            samples[index] = []
            tallies[index] = FrameTally()
            show(index)
        case .failed:
            samples = Array(repeating: [], count: targets.count)
            tallies = Array(repeating: FrameTally(), count: targets.count)
            offered = []
            fitted = nil
            show(0)
        default: break
        }
    }

    /// S: skip a target that fell short (instead of showing it again); the run goes on without it.
    public mutating func pressSkip() {
        guard !scripted, case .retry = phase else { return }
        advance()
    }

    /// Esc or Ctrl-C: abort without a result.
    public mutating func abort() {
        if phase != .finished { phase = .aborted }
    }

    // MARK: - Frames

    /// One processed frame: its features (nil without a usable face), whether a face was found, its time.
    public mutating func frame(_ features: GazeFeatures?, faceFound: Bool, timeSeconds: Double) {
        faceVisible = faceFound
        if firstFrameTime == nil { firstFrameTime = timeSeconds }
        defer { lastFrameTime = timeSeconds }
        if scripted { return scriptedFrame(features, timeSeconds - firstFrameTime!) }
        guard case .target(let index) = phase else { return }
        if shownAt == nil { shownAt = timeSeconds }
        settling = timeSeconds - shownAt! < settleSeconds
        if settling { return }
        tallies[index].count(features, faceFound: faceFound)
        guard faceFound else {
            faceLost = true
            return
        }
        faceLost = false
        if let features {
            samples[index].append(features)
        } else {
            // A face without pupils or pose (eyes shut): the time counts, the sample is unusable.
            samples[index].append(GazeFeatures(timestampSeconds: timeSeconds, pupilLeft: nil, pupilRight: nil,
                                               yawDegrees: 0, pitchDegrees: 0, headX: 0, headY: 0, trackingNormal: false))
        }
        let step = lastFrameTime.map { min(max(timeSeconds - $0, 0), 0.1) } ?? 0
        collectedSeconds += step
        progress = min(collectedSeconds / collectSeconds, 1)
        if collectedSeconds >= collectSeconds { completeTarget(index) }
    }

    /// The input ended (a video ran out, or the camera stopped): a scripted run ends here. (A
    /// target without enough samples cannot be retried in a script: the fit reports it.)
    public mutating func inputEnded() {
        guard scripted, !isDone else { return }
        ended = true
        finish()
    }

    private mutating func show(_ index: Int) {
        phase = .target(index: index)
        shownAt = nil
        collectedSeconds = 0
        progress = 0
        faceLost = false
        settling = true
    }

    private mutating func completeTarget(_ index: Int) {
        if let short = shortfall(index), !offered.contains(index) {
            offered.insert(index)
            let usable = switch short.set {
            case nil: "usable samples"
            case let set?: set.isPolynomial ? "samples with a pupil" : "samples with both eyes open for the eye patches"
            }
            phase = .retry(index: index, reason: "\(short.usable) \(usable) of \(samples[index].count) "
                           + "(needs \(fitter.minimumSamplesPerPoint)): \(diagnosis(index, short)); keep the face in view and the eyes open")
            return
        }
        advance()
    }

    /// How target `index` falls short, if it does: too few samples any set can read, or — for a
    /// calibration target, before the fit — too few that the fitter's preferred set reads (the fit
    /// would go without it for that set). Validation targets are measured whatever set maps them.
    private func shortfall(_ index: Int) -> SkippedCalibrationPoint? {
        let needed = fitter.minimumSamplesPerPoint
        let position = targets[index].position
        let usable = usableCount(index)
        if usable < needed {
            return SkippedCalibrationPoint(point: index, target: position, usable: usable, collected: samples[index].count,
                                           needed: needed)
        }
        guard targets[index].kind == .calibration, let set = fitter.preferredSet else { return nil }
        let frames = fitter.eyeClosure.judged(samples[index])
        let readable = frames.filter { CalibrationFitter.isUsable($0, for: set) }.count
        // Frames the set cannot read even with the eyes open (no eye patches) are no shortfall a
        // second showing could mend.
        let readableOpen = frames.contains { frame in
            var open = frame
            open.eyesClosed = false
            return set.applies(to: open)
        }
        guard readableOpen, readable < needed else { return nil }
        return SkippedCalibrationPoint(point: index, target: position, usable: readable, collected: samples[index].count,
                                       needed: needed, set: set)
    }

    /// Shows the next target not yet collected, fitting the mapping before the first validation target.
    private mutating func advance() {
        let next = targets.indices.first { samples[$0].isEmpty }
        if let next, targets[next].kind == .validation, fitted == nil, existingMapping == nil {
            guard fitMapping() else { return }
        }
        if let next {
            show(next)
        } else {
            finish()
        }
    }

    /// Fits the calibration targets; on failure moves to the failed phase, naming each failed
    /// target and why.
    private mutating func fitMapping() -> Bool {
        let calibrationIndices = targets.indices.filter { targets[$0].kind == .calibration }
        do {
            fitted = try fitter.fit(calibrationPoints())
            return true
        } catch let error {
            switch error {
            case let .tooFewTargets(failed, remaining, needed, spread):
                let total = remaining + failed.count
                let head = spread
                    ? "only \(remaining) of \(total) calibration targets kept enough usable samples (needs \(needed))"
                    : "the \(remaining) of \(total) calibration targets that kept enough usable samples do not span the screen"
                let reason = head + ": " + failed.map { "\($0): \(diagnosis(calibrationIndices[$0.point], $0))" }
                    .joined(separator: "; ")
                phase = .failed(reason: reason + (scripted ? "." : ". Start over, with the face well lit and the eyes on each target."))
            default:
                phase = .failed(reason: error.description)
            }
            return false
        }
    }

    /// Why each calibration target the fit went on without was skipped, by calibration index.
    private func skippedReasons(_ fit: CalibrationFit) -> [Int: String] {
        let calibrationIndices = targets.indices.filter { targets[$0].kind == .calibration }
        var reasons: [Int: String] = [:]
        for skip in fit.skipped { reasons[skip.point] = "\(skip): \(diagnosis(calibrationIndices[skip.point], skip))" }
        return reasons
    }

    private func calibrationPoints() -> [CalibrationPointSamples] {
        targets.indices.filter { targets[$0].kind == .calibration }
            .map { CalibrationPointSamples(target: targets[$0].position, samples: samples[$0]) }
    }

    private mutating func finish() {
        if fitted == nil && existingMapping == nil { guard fitMapping() else { return } }
        let validationSamples = targets.indices.filter { targets[$0].kind == .validation }
            .map { CalibrationPointSamples(target: targets[$0].position, samples: samples[$0]) }
        let report = ValidationReport.measure(mapping: fitted?.mapping ?? existingMapping!, targets: validationSamples,
                                              geometry: geometry)
        validation = report
        if let fitted {
            outcome = CalibrationOutcome(fit: fitted, skippedReasons: skippedReasons(fitted), calibrationSamples: calibrationPoints(),
                                         validationSamples: validationSamples, validation: report)
        }
        phase = .finished
    }

    // MARK: - Scripted

    private mutating func scriptedFrame(_ features: GazeFeatures?, _ relative: Double) {
        guard !isDone else { return }
        lastRelativeSeconds = relative
        if case .failed = phase { return }
        let last = targets.compactMap(\.endSeconds).max() ?? 0
        if relative > last { return finish() }
        guard let index = targets.firstIndex(where: { relative >= $0.startSeconds! && relative <= $0.endSeconds! }) else {
            progress = 0
            return
        }
        phase = .target(index: index)
        let start = targets[index].startSeconds! + settleSeconds
        settling = relative < start
        let span = max(targets[index].endSeconds! - start, 1e-9)
        progress = min(max((relative - start) / span, 0), 1)
        faceLost = features == nil
        if !settling { tallies[index].count(features, faceFound: faceVisible) }
        if !settling, let features { samples[index].append(features) }
    }

    // MARK: - Why a target has too few samples

    /// What the frames of one target's collection time showed.
    struct FrameTally: Sendable, Equatable {
        var frames = 0
        var withFace = 0
        var steady = 0

        mutating func count(_ features: GazeFeatures?, faceFound: Bool) {
            frames += 1
            guard faceFound else { return }
            withFace += 1
            guard let features else { return }
            if features.trackingNormal { steady += 1 }
        }
    }

    /// Why target `index` kept few usable samples, from what its frames showed: the first of no
    /// frame at all (a scripted window past the end of the input, or too short), no face, the face
    /// in few frames, the eyes closed (judged over the target's frames, `EyeClosureJudge`),
    /// tracking not steady, no pupil (for a mapping that reads pupils), too few frames both steady
    /// and readable, or samples dropped as outliers.
    public func diagnosis(_ index: Int, _ skip: SkippedCalibrationPoint? = nil) -> String {
        let tally = tallies[index]
        let eyesOpen = fitter.eyeClosure.judged(samples[index])
            .filter { ($0.pupilLeft != nil || $0.pupilRight != nil || $0.appearance != nil) && $0.eyesOpen }.count
        let needed = fitter.minimumSamplesPerPoint
        func frames(_ count: Int) -> String { "\(count) frame\(count == 1 ? "" : "s")" }
        if tally.frames == 0 {
            if scripted, let start = targets[index].startSeconds, let end = targets[index].endSeconds {
                let window = "its window (\(Self.seconds(start))–\(Self.seconds(end)) s)"
                if ended, let last = lastRelativeSeconds, last < start + settleSeconds {
                    return "\(window) begins after the input ends at \(Self.seconds(last)) s"
                }
                return "no frame fell in \(window) after the settle time of \(Self.seconds(settleSeconds)) s"
            }
            return "no frame was collected"
        }
        if tally.withFace == 0 { return "no face was found in any of its \(frames(tally.frames))" }
        if tally.withFace < needed { return "the face was found in only \(tally.withFace) of its \(frames(tally.frames))" }
        if skip?.outliers != true, skip?.set?.isPolynomial == true {
            let withPupil = samples[index].filter { $0.pupilLeft != nil || $0.pupilRight != nil }.count
            if withPupil < needed {
                return "no pupil was found in \(tally.withFace - withPupil) of the \(frames(tally.withFace)) with a face "
                    + "(reflections on glasses, dim light), which the chosen mapping reads"
            }
        }
        let closed = tally.withFace - eyesOpen
        if skip?.outliers != true && eyesOpen < needed { return "the eyes were closed in \(closed) of the \(frames(tally.withFace)) with a face" }
        if skip?.outliers != true && tally.steady < needed {
            return "tracking was not steady in \(tally.withFace - tally.steady) of the \(frames(tally.withFace)) with a face "
                + "(just found, a poor landmark fit, or fast head motion)"
        }
        if skip?.outliers != true {
            let usable = skip?.usable ?? fitter.usableSamples(samples[index]).count
            let readable = switch skip?.set {
            case nil: "a pupil found or both eyes open"
            case let set?: set.isPolynomial ? "a pupil found" : "both eyes open"
            }
            return "only \(usable) of the \(frames(tally.withFace)) with a face were steady with \(readable)"
        }
        return "samples unlike the others (glances away, mis-fitted frames) were dropped as outliers"
    }

    private static func seconds(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : "\(rounded)"
    }
}
