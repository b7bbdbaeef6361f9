/// Which eyes took part in a blink.
public enum BlinkEyes: String, Sendable, Equatable, CaseIterable {
    case both
    /// Only the participant's left eye closed (a wink).
    case left
    /// Only the participant's right eye closed.
    case right
}

/// A completed eye closure.
public struct BlinkEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A closure within the plausible blink duration.
        case blink
        /// A closure longer than a blink (eyes shut, drowsiness).
        case longClosure
    }

    /// Time the first eye closed (seconds, the frames' time base: Unix time once recorded).
    public var startSeconds: Double
    /// Time the last eye reopened.
    public var endSeconds: Double
    public var eyes: BlinkEyes
    public var kind: Kind
    /// Lowest openness seen during the closure (0 = fully closed).
    public var minimumOpenness: Double

    public init(startSeconds: Double, endSeconds: Double, eyes: BlinkEyes, kind: Kind, minimumOpenness: Double) {
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.eyes = eyes
        self.kind = kind
        self.minimumOpenness = minimumOpenness
    }

    public var durationSeconds: Double { endSeconds - startSeconds }

    /// The same event with its times moved by `seconds` (a replayed file's presentation times → Unix time).
    public func shifted(by seconds: Double) -> BlinkEvent {
        BlinkEvent(startSeconds: startSeconds + seconds, endSeconds: endSeconds + seconds, eyes: eyes, kind: kind,
                   minimumOpenness: minimumOpenness)
    }
}
