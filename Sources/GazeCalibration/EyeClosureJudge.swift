import GazeCore
import GazeModel

/// Judges which of one target's frames had the eyes shut, telling a blink from a look down.
///
/// The lids follow the gaze: looking at a target low on the screen lowers the upper lids, and the
/// eye aspect ratio falls as far as in a blink (the eyes' openness, relative to their usual open
/// level, drops below `GazeFeatures.closedOpenness`), though the iris stays in view and the eye
/// patches still say where the eyes look. What separates the two is time: a blink is short and the
/// eyes reopen, a look down holds as long as the gaze does. So, over the frames collected while the
/// participant looked at one target, the eyes' usual openness at that target is the median of
/// their frames' lower openness; a frame is closed only when its lower openness is at or below
/// `closedOpenness` **and** at least `dip` below that median. A blink at any target dips below its
/// own target's level and is left out; a target looked at with narrowed eyes keeps all its frames.
/// (Eyes shut through more than half of a target's frames look like a narrowed gaze and are kept:
/// the fit's outlier and cross-validation passes judge them.)
public struct EyeClosureJudge: Sendable {
    /// How far below the target's median openness a closed frame must be.
    public var dip: Double

    public init(dip: Double = 0.3) {
        self.dip = dip
    }

    /// The frames of one target with `eyesClosed` set by this rule (frames without any measured
    /// openness keep their own judgement).
    public func judged(_ frames: [GazeFeatures]) -> [GazeFeatures] {
        let measured = frames.filter { $0.opennessLeft != nil || $0.opennessRight != nil }
        guard !measured.isEmpty else { return frames }
        let level = median(measured.map(\.lowerOpenness))
        return frames.map { frame in
            var frame = frame
            if frame.opennessLeft != nil || frame.opennessRight != nil {
                let openness = frame.lowerOpenness
                frame.eyesClosed = openness <= GazeFeatures.closedOpenness && openness <= level - dip
            }
            return frame
        }
    }
}
