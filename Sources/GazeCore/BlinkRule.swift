/// The blink rules measured against each other on labelled clips (docs/Benchmarks.md), each a
/// `BlinkDetector` configuration. They differ in how deep a closure must go to be an event on a
/// stream whose landmarks jitter: where and when closures begin and end is the same in all but
/// `bothEyes` and `bothEyesHeld`, whose closures begin at 0.85 of the open level instead of 0.8.
/// `shipped` is the one recordings use; the others exist so a labelled folder can rank them.
public enum BlinkRule: String, CaseIterable, Sendable {
    /// The drop an event needs (0.15) grows in proportion to the jitter above 0.025, to at most 0.3.
    case round3
    /// A fixed drop of 0.15, whatever the jitter (the rule before the jitter was measured).
    case round2
    /// As `round3`, but to at most 0.2: a shaky stream still reports blinks of a fifth of the open level.
    case capped
    /// The drop grows with the square root of the jitter's ratio to 0.025, to at most 0.3: half as
    /// steep at twice the jitter.
    case squareRoot
    /// As `round3`, but a closure in which an eye was seen shut (openness below 0.2, where pupils
    /// and PERCLOS take an eye for shut) needs only the fixed 0.15: the jitter's deep swings leave
    /// the eyes' openness well above that.
    case shutOrScaled
    /// As `round2`, but the fixed drop must hold for two frames (the closure's second-lowest frame
    /// 0.15 below the level): the jitter's swings last one frame, a blink's closed lids several.
    case held
    /// As `round2`, and a shallower closure counts when both eyes fell together: closures begin
    /// below 0.85 of the open level, and one that never fell below 0.8 is an event only if both
    /// eyes were 0.1 below the level in one frame (a blink closes both eyes; whether the jitter
    /// narrows both at once is what the labelled clips decide).
    case bothEyes
    /// `bothEyes` with `held`'s two-frame depth.
    case bothEyesHeld

    /// The rule recordings and `analyze` use.
    public static let shipped = BlinkRule.round2

    /// A detector that follows this rule.
    public var detector: BlinkDetector {
        switch self {
        case .round3: BlinkDetector()
        case .round2: BlinkDetector(largestMinimumDrop: 0.15)
        case .capped: BlinkDetector(largestMinimumDrop: 0.2)
        case .squareRoot: BlinkDetector(jitterScaling: .squareRoot)
        case .shutOrScaled: BlinkDetector(shutOpenness: 0.2)
        case .held: BlinkDetector(largestMinimumDrop: 0.15, heldFrames: 2)
        case .bothEyes: BlinkDetector(enterAperture: 0.85, largestMinimumDrop: 0.15, jointEyeDrop: 0.1)
        case .bothEyesHeld: BlinkDetector(enterAperture: 0.85, largestMinimumDrop: 0.15, heldFrames: 2, jointEyeDrop: 0.1)
        }
    }
}
