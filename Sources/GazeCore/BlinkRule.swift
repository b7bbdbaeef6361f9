/// The blink rules measured against each other on labelled clips (docs/Benchmarks.md), each a
/// `BlinkDetector` configuration. They differ only in how deep a closure must go to be an event
/// on a stream whose landmarks jitter: where and when closures begin and end is the same in all.
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

    /// The rule recordings and `analyze` use.
    public static let shipped = BlinkRule.round3

    /// A detector that follows this rule.
    public var detector: BlinkDetector {
        switch self {
        case .round3: BlinkDetector()
        case .round2: BlinkDetector(largestMinimumDrop: 0.15)
        case .capped: BlinkDetector(largestMinimumDrop: 0.2)
        case .squareRoot: BlinkDetector(jitterScaling: .squareRoot)
        case .shutOrScaled: BlinkDetector(shutOpenness: 0.2)
        }
    }
}
