/// A presentation's playback position over the session's clock: the one rule every reader of a
/// presentation (the CSV's `stimulusSeconds`, the stimulus commands' playback-second bins) uses, so
/// no two of them can disagree about where in the stimulus a frame fell.
///
/// Nothing about the stimulus is stored per frame: a frame's stimulus and position are derived from
/// the stored presentations by this rule.
///
/// - Outside onset…offset (onset included, offset excluded) there is no position (nil). A
///   presentation still shown (no offset) holds from its onset on.
/// - The position is anchored at every playback sample and every event (a seek's anchor is where
///   it landed); before the first anchor it is anchored at the onset with position 0 (the first
///   frame was on the screen at the onset).
/// - From its latest anchor the position advances at rate 1 (one stimulus second per session
///   second) while playing, and holds while paused (from `pause` to `resume`) or stalled (from
///   `stall` to `stallEnd`). A seek jumps: the next anchor is where it landed.
/// - The position never falls below 0 nor passes the stimulus's duration (when known).
///
/// An anchor and an event at the same session time: the event comes after the sample (a seek's
/// landing wins over the sample taken as it happened).
public struct PresentationClock: Sendable {
    private struct Anchor: Sendable {
        var timestampSeconds: Double
        var stimulusSeconds: Double
        /// Whether playback holds after this anchor (paused or stalled).
        var held: Bool
    }

    /// One piece of the rule: from `startSeconds` (session clock) until the next segment's start or
    /// the offset, the position is `stimulusSeconds + rate × (t − startSeconds)`, `rate` 1 while
    /// playing and 0 while paused or stalled, then kept within 0…the stimulus's duration
    /// (`limitSeconds`). What a reader outside Swift (the review page) evaluates to place a time
    /// exactly as `stimulusSeconds(at:)` does.
    public struct Segment: Sendable, Equatable {
        /// Session clock (Unix seconds): where the segment begins (at or after the onset).
        public var startSeconds: Double
        /// The position at `startSeconds`, before the clamp.
        public var stimulusSeconds: Double
        /// 1 while playing, 0 while paused or stalled.
        public var rate: Double
    }

    public let onsetSeconds: Double
    public let offsetSeconds: Double?
    /// The stimulus's duration, which the position never passes (nil: unknown, no upper bound).
    public let limitSeconds: Double?
    /// The pieces from the onset to the offset, in time order, each starting later than the one before.
    public let segments: [Segment]

    public init(_ presentation: Presentation) {
        onsetSeconds = presentation.onsetSeconds
        offsetSeconds = presentation.offsetSeconds
        limitSeconds = presentation.durationSeconds
        segments = Self.segments(Self.anchors(presentation), onset: presentation.onsetSeconds, offset: presentation.offsetSeconds)
    }

    /// The anchors in time order, each with the playing state after it.
    private static func anchors(_ presentation: Presentation) -> [Anchor] {
        // (time, order at equal times, position, event kind or nil for a playback sample)
        var merged: [(Double, Int, Double, PresentationEvent.Kind?)] = []
        merged.reserveCapacity(presentation.playback.count + presentation.events.count)
        for (i, sample) in presentation.playback.enumerated() {
            merged.append((sample.timestampSeconds, i, sample.stimulusSeconds, nil))
        }
        let eventOrder = presentation.playback.count
        for (i, event) in presentation.events.enumerated() {
            merged.append((event.timestampSeconds, eventOrder + i, event.stimulusSeconds, event.kind))
        }
        merged.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        var paused = false, stalled = false
        return merged.map { time, _, position, kind in
            switch kind {
            case .pause?: paused = true
            case .resume?: paused = false
            case .stall?: stalled = true
            case .stallEnd?: stalled = false
            case .seek?, nil: break
            }
            return Anchor(timestampSeconds: time, stimulusSeconds: position, held: paused || stalled)
        }
    }

    /// Whether session time `t` falls in the presentation (onset included, offset excluded).
    public func contains(_ t: Double) -> Bool {
        t >= onsetSeconds && (offsetSeconds.map { t < $0 } ?? true)
    }

    /// The anchors as segments: the onset's implicit anchor (position 0, playing) until the first
    /// anchor, then each anchor until the next; an anchor before the onset starts at the onset, one
    /// at or after the offset and one followed by another at the same time have no segment.
    private static func segments(_ anchors: [Anchor], onset: Double, offset: Double?) -> [Segment] {
        var segments: [Segment] = []
        let first = anchors.first.map { $0.timestampSeconds > onset } ?? true
        if first { segments.append(Segment(startSeconds: onset, stimulusSeconds: 0, rate: 1)) }
        for (index, anchor) in anchors.enumerated() {
            let next = index + 1 < anchors.count ? anchors[index + 1].timestampSeconds : .infinity
            let start = max(anchor.timestampSeconds, onset)
            // Superseded: a later anchor at or before the onset, or at the same time.
            guard next > onset, next > anchor.timestampSeconds, offset.map({ start < $0 }) ?? true else { continue }
            segments.append(Segment(startSeconds: start, stimulusSeconds: anchor.stimulusSeconds, rate: anchor.held ? 0 : 1))
        }
        return segments
    }

    /// The stimulus's position (its own seconds) on the screen at session time `t`; nil outside
    /// the presentation. The segment at `t` evaluated: `stimulusSeconds + rate × (t − startSeconds)`,
    /// kept within 0…`limitSeconds`.
    public func stimulusSeconds(at t: Double) -> Double? {
        guard contains(t) else { return nil }
        // The last segment starting at or before t (binary search: segments are in time order).
        var low = 0, high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if segments[middle].startSeconds <= t { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let segment = segments[low - 1]
        let position = segment.stimulusSeconds + segment.rate * (t - segment.startSeconds)
        return min(max(position, 0), limitSeconds ?? .infinity)
    }
}

extension Presentation {
    /// The rule that turns this presentation's samples and events into a position over time.
    /// Build it once to read many times.
    public var clock: PresentationClock { PresentationClock(self) }

    /// The stimulus's position (its own seconds) on the screen at session time `t`, nil outside
    /// onset…offset: `PresentationClock`'s rule (interpolated at rate 1 while playing, held while
    /// paused or stalled, jumping at seeks). Builds the clock each call: for many times, use `clock`.
    public func stimulusSeconds(at t: Double) -> Double? {
        clock.stimulusSeconds(at: t)
    }
}

extension Array where Element == Presentation {
    /// The presentation on the screen at session time `t` (onset included, offset excluded), nil
    /// between items; when two overlap (which a presenter does not record), the later in the array.
    public func showing(at t: Double) -> Presentation? {
        last { $0.onsetSeconds <= t && ($0.offsetSeconds.map { t < $0 } ?? true) }
    }
}
