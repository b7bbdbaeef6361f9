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

    public let onsetSeconds: Double
    public let offsetSeconds: Double?
    private let durationSeconds: Double?
    private let anchors: [Anchor]

    public init(_ presentation: Presentation) {
        onsetSeconds = presentation.onsetSeconds
        offsetSeconds = presentation.offsetSeconds
        durationSeconds = presentation.durationSeconds
        anchors = Self.anchors(presentation)
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

    /// The stimulus's position (its own seconds) on the screen at session time `t`; nil outside
    /// the presentation.
    public func stimulusSeconds(at t: Double) -> Double? {
        guard contains(t) else { return nil }
        // The last anchor at or before t (binary search: anchors are in time order).
        var low = 0, high = anchors.count
        while low < high {
            let middle = (low + high) / 2
            if anchors[middle].timestampSeconds <= t { low = middle + 1 } else { high = middle }
        }
        let anchor = low > 0 ? anchors[low - 1] : Anchor(timestampSeconds: onsetSeconds, stimulusSeconds: 0, held: false)
        let position = anchor.held ? anchor.stimulusSeconds : anchor.stimulusSeconds + (t - max(anchor.timestampSeconds, onsetSeconds))
        return min(max(position, 0), durationSeconds ?? .infinity)
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
