import GazeModel

/// Finds blinks from the shape of both eyes' aperture over time, not from one absolute threshold.
///
/// Its input is each eye's aperture relative to its own open level (the eye aspect ratio over
/// the ratio that eye usually has open, `FrameFeatures.relativeAperture`): about 1 while open,
/// whatever the face's size, lids or glasses. Both eyes are taken together (their mean), as
/// blinks are. A closure begins when the aperture drops below `enterAperture` — and, right after
/// a closure, `rearmDrop` below the highest aperture since, so an eye that reopens only partly
/// (looking down) starts no new closure — and ends when it has recovered `recovery` of its drop:
/// at `minimum + recovery × (level − minimum)`, the level being 1 or, right after a closure or a
/// narrowed gaze, the highest aperture since (if lower). A dip that deep and that quick is a blink whatever the
/// eye's size: a small eye whose lids never meet in the landmarks still halves its drop and
/// recovers. Closures shorter than `minimumDuration` are noise. Whether a closure is a blink or a
/// `longClosure` depends on how long the eye stays nearly shut — within `closedDepth` of the
/// drop from its minimum (the lids' slow start and end left out): up to `maximumBlinkDuration`
/// it is a blink (typically 100–400 ms), longer a long closure — which must also go deep, below
/// `longClosureAperture`, or it was no closure but a change of expression (wide eyes relaxing, a
/// look down: shallow and slow), and no event is reported. A frame without a face ends
/// nothing: the closure continues across the gap, unless the gap exceeds `maximumGap`, which
/// discards it. The eyes an event names are those whose own aperture fell below `eyeClosedAperture`.
///
/// Looking down lowers the lids as far as a closure does, and holds. So, when the frames say
/// whether the irises show along the eyes' slits (`eyesVisible`, from `EyeSlitContrast`), a
/// closure whose eyes have stayed nearly shut (within `closedDepth` of the drop) longer than
/// `maximumBlinkDuration` while the irises showed in at least half of its frames is a narrowed
/// gaze, not a closure: it ends there with no event, and its aperture becomes the level the next
/// closure is measured from (a blink while looking down still dips `rearmDrop` below it, and has
/// recovered at `recovery` of its drop back to it). A blink is judged by time and depth alone,
/// whatever the slits show, so the slits cost no blink.
///
/// How deep a closure must go to be an event depends on how steady this stream's landmarks are.
/// The lids' landmarks jitter from frame to frame, and far more on a small or foreshortened eye (a
/// camera below the face, looking up; a frame near the lids) than on the clips the thresholds were
/// set on; a fixed depth then takes the jitter's deeper swings for blinks. So the jitter is
/// measured — the median change of the mean aperture between consecutive open frames, over the
/// last `jitterWindow` of them — and above `referenceJitter` (the shared clips' jitter is below
/// it) `minimumDrop` grows in proportion, to at most `largestMinimumDrop`; it is fixed for each
/// closure when it begins. Where and when a closure begins and ends does not change (so neither do
/// the narrowed gaze's and the long closure's rules), only whether it is an event. Until
/// `jitterMinimumFrames` open frames are seen the reference holds. The candidate rules of
/// `BlinkRule` vary mostly this: the cap, proportional or square-root growth, and (`shutOpenness`,
/// unset by default) the fixed `minimumDrop` for a closure in which an eye was seen shut. Two more
/// tests of depth, off by default, are the other candidates': `heldFrames` measures the drop at the
/// closure's `heldFrames`-th lowest frame instead of its lowest (a blink holds the lids down for
/// frames, many of the jitter's swings last one), and `jointEyeDrop` lets a closure begin at a
/// higher `enterAperture` but makes one that never fell below `jointCheckAperture` an event only
/// if, in one frame, both eyes were at least `jointEyeDrop` below the level (a blink closes both;
/// the bet is that the jitter narrows one eye at a time — on the shared clips it does not: the two
/// eyes' frame-to-frame changes correlate 0.85–0.93, docs/Benchmarks.md).
///
/// Two blinks in quick succession (a double blink) can leave the eye no time to recover
/// `recovery` of its drop between them. So a closure whose aperture has come back up by
/// `splitRecovery` of its drop and stayed there for `splitHoldSeconds` (two frames at least), then
/// falls again by `splitDrop` of the drop below that rebound's peak, is two closures: the first ends
/// where the rebound began, the second begins where it ended. Only a deep drop splits, at least
/// `splitMinimumDrop` (the landmarks' jitter on a narrowed eye rebounds by as much as a shallow one),
/// only once per closure, and never a first part that is already a long closure; a one-frame
/// rebound (jitter) or a partial reopening of a third of the drop (the lids fluttering) splits
/// nothing.
public struct BlinkDetector: Sendable {
    public var enterAperture: Double
    public var recovery: Double
    public var rearmDrop: Double
    public var eyeClosedAperture: Double
    public var minimumDuration: Double
    public var maximumBlinkDuration: Double
    public var maximumGap: Double
    /// The part of the drop, above the minimum, within which the eye counts as shut.
    public var closedDepth: Double
    /// The aperture a long closure must fall below (a blink need not: it is quick).
    public var longClosureAperture: Double
    /// How far below the level it started from a closure must go to be an event.
    public var minimumDrop: Double
    /// How far back the level a closure starts from is taken (the highest aperture in that time).
    public var levelSeconds: Double
    /// The share of its drop a closure must have recovered, and then lost again, to be two blinks.
    public var splitRecovery: Double
    public var splitDrop: Double
    /// The drop below the level a closure started from that a double blink needs.
    public var splitMinimumDrop: Double
    /// How long the eyes must stay reopened between the two blinks of a double blink.
    public var splitHoldSeconds: Double
    /// The landmarks' frame-to-frame jitter (median change of the mean aperture) up to which
    /// `minimumDrop` holds as given.
    public var referenceJitter: Double
    /// How many consecutive open frames' changes the jitter is measured over, and how many it needs.
    public var jitterWindow: Int
    public var jitterMinimumFrames: Int
    /// The most the jitter can raise `minimumDrop` to.
    public var largestMinimumDrop: Double
    /// When set, a closure in which an eye's openness fell below this (seen shut) needs only
    /// `minimumDrop`, whatever the jitter: the jitter's swings narrow the aperture, they do not shut an eye.
    public var shutOpenness: Double?
    /// How `minimumDrop` grows with the jitter above `referenceJitter`: in proportion to it, or
    /// with its square root.
    public var jitterScaling: JitterScaling
    /// The drop is measured at the closure's `heldFrames`-th lowest frame (1: its minimum).
    public var heldFrames: Int
    /// When set, a closure whose aperture never fell below `jointCheckAperture` is an event only if
    /// both eyes' own apertures were at least this far below the level in one frame.
    public var jointEyeDrop: Double?
    public var jointCheckAperture: Double

    /// How the drop an event needs grows with the landmarks' jitter.
    public enum JitterScaling: Sendable {
        case proportional
        case squareRoot
    }

    private var startSeconds: Double?
    /// This closure's frames: time and both eyes' mean aperture.
    private var trace: [(time: Double, aperture: Double)] = []
    private var minimumAperture = 1.0
    /// Whether this closure began at a double blink's rebound (it splits no further).
    private var splitOnce = false
    private var minimumEyeAperture: [Eye: Double] = [.left: 1, .right: 1]
    /// The lowest, over this closure's frames, of the wider eye's aperture: how far both eyes fell together.
    private var jointMinimum = 1.0
    private var minimumOpenness = 1.0
    private var peakSinceClosure = 1.0
    /// The aperture this closure's recovery is measured towards: the open level, or the narrowed one.
    private var baseline = 1.0
    /// This closure's frames with a slit judgement, and those of them whose irises showed.
    private var judgedFrames = 0
    private var visibleFrames = 0
    /// The open eyes' recent apertures (the last `levelSeconds`), oldest first.
    private var recent: [(time: Double, aperture: Double)] = []
    private var lastSeconds: Double?
    /// The open frames' changes of aperture from the frame before (a ring), and the last open aperture.
    private var changes: [Double] = []
    private var nextChange = 0
    private var lastOpenAperture: Double?
    /// The drop this closure must reach to be an event (fixed when it began).
    private var requiredDrop: Double

    public init(enterAperture: Double = 0.8, recovery: Double = 0.6, rearmDrop: Double = 0.08,
                eyeClosedAperture: Double = 0.88, minimumDuration: Double = 0.05, maximumBlinkDuration: Double = 0.5,
                maximumGap: Double = 0.25, closedDepth: Double = 0.35, longClosureAperture: Double = 0.6,
                minimumDrop: Double = 0.15, levelSeconds: Double = 0.5, splitRecovery: Double = 0.5,
                splitDrop: Double = 0.5, splitMinimumDrop: Double = 0.35, splitHoldSeconds: Double = 0.06,
                referenceJitter: Double = 0.025, jitterWindow: Int = 90, jitterMinimumFrames: Int = 15,
                largestMinimumDrop: Double = 0.3, jitterScaling: JitterScaling = .proportional,
                shutOpenness: Double? = nil, heldFrames: Int = 1, jointEyeDrop: Double? = nil,
                jointCheckAperture: Double = 0.8) {
        precondition(enterAperture < 1 && (0..<1).contains(recovery) && eyeClosedAperture <= 1 && heldFrames >= 1)
        precondition(referenceJitter > 0 && jitterWindow > 0 && (1...jitterWindow).contains(jitterMinimumFrames))
        self.enterAperture = enterAperture
        self.recovery = recovery
        self.rearmDrop = rearmDrop
        self.eyeClosedAperture = eyeClosedAperture
        self.minimumDuration = minimumDuration
        self.maximumBlinkDuration = maximumBlinkDuration
        self.maximumGap = maximumGap
        self.closedDepth = closedDepth
        self.longClosureAperture = longClosureAperture
        self.minimumDrop = minimumDrop
        self.levelSeconds = levelSeconds
        self.splitRecovery = splitRecovery
        self.splitDrop = splitDrop
        self.splitMinimumDrop = splitMinimumDrop
        self.splitHoldSeconds = splitHoldSeconds
        self.referenceJitter = referenceJitter
        self.jitterWindow = jitterWindow
        self.jitterMinimumFrames = jitterMinimumFrames
        self.largestMinimumDrop = largestMinimumDrop
        self.jitterScaling = jitterScaling
        self.shutOpenness = shutOpenness
        self.heldFrames = heldFrames
        self.jointEyeDrop = jointEyeDrop
        self.jointCheckAperture = jointCheckAperture
        requiredDrop = minimumDrop
    }

    /// This stream's landmark jitter: the median change of the mean aperture between consecutive
    /// open frames (the reference until enough were seen).
    public var jitter: Double {
        guard changes.count >= jitterMinimumFrames else { return referenceJitter }
        let sorted = changes.sorted()
        return sorted[sorted.count / 2]
    }

    /// The drop below its level a closure must reach to be an event, at this stream's jitter.
    public var scaledMinimumDrop: Double { minimumDrop(atJitter: jitter) }

    /// The drop an event needs at `jitter`: `minimumDrop` up to `referenceJitter`, above it times
    /// jitter / reference (or its square root, as `jitterScaling` says), at most `largestMinimumDrop`.
    public func minimumDrop(atJitter jitter: Double) -> Double {
        let ratio = Swift.max(1, jitter / referenceJitter)
        return Swift.min(largestMinimumDrop, minimumDrop * (jitterScaling == .proportional ? ratio : ratio.squareRoot()))
    }

    private mutating func noteOpen(_ aperture: Double) {
        if let last = lastOpenAperture {
            let change = abs(aperture - last)
            if changes.count < jitterWindow { changes.append(change) } else { changes[nextChange] = change }
            nextChange = (nextChange + 1) % jitterWindow
        }
        lastOpenAperture = aperture
    }

    /// Whether a closure is in progress (the per-frame blink flag).
    public var isClosed: Bool { startSeconds != nil }

    /// Feeds one frame: each eye's relative aperture and openness (for the event's minimum), and
    /// whether the irises showed along the slits (nil: not judged). Returns the event this frame
    /// completed, if any.
    public mutating func update(timeSeconds: Double, leftAperture: Double, rightAperture: Double,
                                leftOpenness: Double, rightOpenness: Double, eyesVisible: Bool? = nil) -> BlinkEvent? {
        if let last = lastSeconds, timeSeconds - last > maximumGap {
            lastOpenAperture = nil
            if startSeconds != nil { reset() }
        }
        lastSeconds = timeSeconds
        let aperture = (leftAperture + rightAperture) / 2
        guard let start = startSeconds else {
            peakSinceClosure = Swift.max(peakSinceClosure, aperture)
            if aperture < Swift.min(enterAperture, peakSinceClosure - rearmDrop) {
                lastOpenAperture = nil
                requiredDrop = scaledMinimumDrop
                startSeconds = timeSeconds
                trace = [(timeSeconds, aperture)]
                baseline = Swift.min(1, peakSinceClosure, recent.map(\.aperture).max() ?? 1)
                recent.removeAll(keepingCapacity: true)
                minimumAperture = aperture
                minimumEyeAperture = [.left: leftAperture, .right: rightAperture]
                jointMinimum = Swift.max(leftAperture, rightAperture)
                minimumOpenness = Swift.min(leftOpenness, rightOpenness)
                count(eyesVisible)
            } else {
                noteOpen(aperture)
                recent.removeAll { timeSeconds - $0.time > levelSeconds }
                recent.append((timeSeconds, aperture))
            }
            return nil
        }
        trace.append((timeSeconds, aperture))
        let split = splitAtRebound(aperture, start: start, leftAperture, rightAperture, leftOpenness, rightOpenness,
                                   eyesVisible)
        if split.happened { return split.event }
        minimumAperture = Swift.min(minimumAperture, aperture)
        count(eyesVisible)
        minimumEyeAperture[.left] = Swift.min(minimumEyeAperture[.left]!, leftAperture)
        minimumEyeAperture[.right] = Swift.min(minimumEyeAperture[.right]!, rightAperture)
        jointMinimum = Swift.min(jointMinimum, Swift.max(leftAperture, rightAperture))
        if irisesShowed && shutSeconds > maximumBlinkDuration {
            reset()
            peakSinceClosure = aperture
            return nil
        }
        guard aperture >= minimumAperture + recovery * (baseline - minimumAperture) else {
            minimumOpenness = Swift.min(minimumOpenness, leftOpenness, rightOpenness)
            return nil
        }
        let event = makeEvent(start: start, end: timeSeconds)
        reset()
        peakSinceClosure = aperture
        return event
    }

    /// A double blink: when this frame (the last of `trace`) falls `splitDrop` of the drop below
    /// a held rebound of `splitRecovery` of it, the closure up to the rebound's start is reported
    /// (when it is an event) and a new one goes on from the rebound's end.
    private mutating func splitAtRebound(_ aperture: Double, start: Double, _ leftAperture: Double, _ rightAperture: Double,
                                         _ leftOpenness: Double, _ rightOpenness: Double, _ eyesVisible: Bool?)
        -> (happened: Bool, event: BlinkEvent?) {
        let drop = baseline - minimumAperture
        guard !splitOnce, drop >= splitMinimumDrop, trace.count >= 4,
              let lowest = trace.firstIndex(where: { $0.aperture == minimumAperture }) else { return (false, nil) }
        // The last run of frames after the minimum (this one left out) back up by `splitRecovery`.
        let level = minimumAperture + splitRecovery * drop
        var runEnd = trace.count - 2
        while runEnd > lowest, trace[runEnd].aperture < level { runEnd -= 1 }
        guard runEnd > lowest else { return (false, nil) }
        var runStart = runEnd
        while runStart - 1 > lowest, trace[runStart - 1].aperture >= level { runStart -= 1 }
        let interval = (trace[trace.count - 1].time - trace[0].time) / Double(trace.count - 1)
        let peak = trace[runStart...runEnd].map(\.aperture).max()!
        guard runEnd > runStart, trace[runEnd].time - trace[runStart].time + interval >= splitHoldSeconds - 1e-9,
              peak - aperture >= splitDrop * drop else { return (false, nil) }
        let whole = trace
        trace = Array(whole[...runStart])
        guard shutSeconds <= maximumBlinkDuration else {
            trace = whole
            return (false, nil)
        }
        let event = makeEvent(start: start, end: whole[runStart].time)
        let openLevel = baseline
        reset()
        startSeconds = whole[runEnd].time
        trace = Array(whole[runEnd...])
        baseline = openLevel
        minimumAperture = trace.map(\.aperture).min()!
        minimumEyeAperture = [.left: leftAperture, .right: rightAperture]
        jointMinimum = Swift.max(leftAperture, rightAperture)
        minimumOpenness = Swift.min(leftOpenness, rightOpenness)
        count(eyesVisible)
        splitOnce = true
        return (true, event)
    }

    /// Whether the irises showed along the slits in at least half of this closure's judged frames.
    var irisesShowed: Bool { judgedFrames > 0 && 2 * visibleFrames >= judgedFrames }

    private mutating func count(_ eyesVisible: Bool?) {
        guard let eyesVisible else { return }
        judgedFrames += 1
        if eyesVisible { visibleFrames += 1 }
    }

    /// A frame without a face: continues a closure unless the gap grows too long.
    public mutating func missing(timeSeconds: Double) {
        lastOpenAperture = nil
        if let last = lastSeconds, timeSeconds - last > maximumGap {
            reset()
            lastSeconds = nil
        }
    }

    /// Ends the stream: a closure still open at the end is reported if long enough.
    public mutating func finish(timeSeconds: Double) -> BlinkEvent? {
        guard let start = startSeconds else { return nil }
        let event = makeEvent(start: start, end: timeSeconds)
        reset()
        return event
    }

    private func makeEvent(start: Double, end: Double) -> BlinkEvent? {
        let duration = end - start
        let seenShut = shutOpenness.map { minimumOpenness < $0 } ?? false
        guard duration >= minimumDuration, baseline - heldAperture >= (seenShut ? minimumDrop : requiredDrop) else { return nil }
        if let jointEyeDrop, minimumAperture >= jointCheckAperture, baseline - jointMinimum < jointEyeDrop { return nil }
        let left = minimumEyeAperture[.left]! < eyeClosedAperture, right = minimumEyeAperture[.right]! < eyeClosedAperture
        let eyes: BlinkEyes = left == right ? .both : (left ? .left : .right)
        let kind: BlinkEvent.Kind = shutSeconds <= maximumBlinkDuration ? .blink : .longClosure
        if kind == .longClosure && (judgedFrames > 0 ? irisesShowed : minimumAperture > longClosureAperture) { return nil }
        return BlinkEvent(startSeconds: start, endSeconds: end, eyes: eyes, kind: kind, minimumOpenness: minimumOpenness)
    }

    /// The closure's `heldFrames`-th lowest aperture (its minimum when it has fewer frames): the
    /// depth its lids held.
    var heldAperture: Double {
        guard heldFrames > 1, trace.count > 1 else { return minimumAperture }
        return trace.map(\.aperture).sorted()[Swift.min(heldFrames, trace.count) - 1]
    }

    /// How long this closure stayed within `closedDepth` of its drop from the minimum: from the
    /// first to the last such frame, plus one frame interval.
    var shutSeconds: Double {
        let level = minimumAperture + closedDepth * (1 - minimumAperture)
        let shut = trace.filter { $0.aperture <= level }
        guard let first = shut.first, let last = shut.last else { return 0 }
        let interval = trace.count > 1 ? (trace[trace.count - 1].time - trace[0].time) / Double(trace.count - 1) : 0
        return last.time - first.time + interval
    }

    private mutating func reset() {
        startSeconds = nil
        trace.removeAll(keepingCapacity: true)
        minimumAperture = 1
        splitOnce = false
        minimumEyeAperture = [.left: 1, .right: 1]
        jointMinimum = 1
        minimumOpenness = 1
        peakSinceClosure = 1
        baseline = 1
        judgedFrames = 0
        visibleFrames = 0
    }
}

/// Holds back frames while a closure is undecided, so each frame's blink flag says what the
/// detector finally made of its closure: frames of a closure that became no event (under 50 ms,
/// or a slow shallow narrowing) are given back unflagged. Feeds frames in order with the event
/// each completed; gets them back in order, decided. A closure holds back at most its own length.
public struct BlinkFlagResolver: Sendable {
    private var pending: [FrameFeatures] = []

    public init() {}

    /// The frames decided by this one (none while its closure is undecided).
    public mutating func add(_ features: FrameFeatures, completed event: BlinkEvent?) -> [FrameFeatures] {
        if features.blinking || (features.face == nil && !pending.isEmpty && event == nil) {
            // The first blink of a double blink, reported while the second goes on, decides its own
            // frames; those after it wait for the second's verdict.
            var decided: [FrameFeatures] = []
            if let event {
                let cut = pending.firstIndex { $0.timestampSeconds > event.endSeconds + 1e-9 } ?? pending.count
                decided = Array(pending[..<cut])
                pending.removeFirst(cut)
            }
            pending.append(features)
            return decided
        }
        return resolve(event) + [features]
    }

    /// The frames still held at the end of the stream, decided by the stream's last event.
    public mutating func finish(completed event: BlinkEvent?) -> [FrameFeatures] {
        resolve(event)
    }

    private mutating func resolve(_ event: BlinkEvent?) -> [FrameFeatures] {
        defer { pending.removeAll(keepingCapacity: true) }
        guard event == nil else { return pending }
        return pending.map { frame in
            var frame = frame
            frame.blinking = false
            return frame
        }
    }
}
