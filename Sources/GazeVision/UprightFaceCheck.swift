import Foundation
import GazeCapture
import GazeCore
import GazeModel

/// How a tracked face stands in the frame, as dlib's frontal HOG detector sees it: the test of
/// plausibility that decides whether a landmark fit is reported.
///
/// dlib's 68-point model was trained on faces its frontal HOG detector finds (upright, turned by
/// up to about 45°), in the boxes that detector draws. Shown anything else — a face lying on its
/// side in a rotated video, a profile — it does not fail: it returns a frontal, upright face shape
/// that scores as well as a real one (the shape confidence of fits on the shared clips turned by
/// 90° is 0.5–0.8, as high as upright ones), whose pose is then garbage. So the landmarks cannot
/// judge themselves; the detector judges the face they came from.
public enum FaceUprightness: Sendable, Equatable {
    /// The frontal HOG detector finds the face as the frame shows it: the fit is trusted.
    case upright
    /// The detector finds the face only in the frame turned clockwise by this many degrees (90,
    /// 180 or 270): the picture is rotated, and its fits are not reported.
    case turned(clockwiseDegrees: Int)
    /// The detector finds no face there in any orientation (only the CNN found it: a profile, a
    /// face it cannot confirm): its fits are not reported.
    case unconfirmed

    /// Whether fits of this face are reported as tracked.
    public var isTrusted: Bool { self == .upright }

    /// The warning for frames of a face that is not upright, the first of them `atSeconds` into the
    /// stream: what becomes of them and what would help (nil for an upright face).
    public func warning(atSeconds: Double) -> String? {
        let from = "from \(String(format: "%.1f", atSeconds)) s, "
        switch self {
        case .upright:
            return nil
        case .turned(let degrees):
            return from + "the face is not upright (the frontal face detector finds it only with the picture turned "
                + "\(degrees)° clockwise: a rotated video or a camera mounted sideways), so its landmarks would be garbage; "
                + "those frames are recorded as without a face. Turn the frames \(degrees)° clockwise to track it."
        case .unconfirmed:
            return from + "the face's landmarks are implausible for an upright face (a profile, or a face the frontal "
                + "detector cannot confirm in any orientation), so those frames are recorded as without a face."
        }
    }
}

/// Looks for the frontal HOG detector's agreement around a face the CNN found: the part of the
/// frame around its box, as it is and turned by 90°, 180° and 270°.
///
/// A face one of the HOG stages found is upright by construction and never comes here; this runs
/// only when a face is acquired by the CNN (at most once per acquisition), on a part of about
/// 2 × 2 box sides shrunk so the face is about 100 pixels across: four HOG looks at about
/// 200 × 200 pixels, less than one look at a 400-pixel-wide frame costs, beside the CNN's own
/// tens of milliseconds. Not thread-safe (it owns a detector): one per tracker.
public final class UprightFaceCheck {
    /// The part looked at: the box grown by this fraction of its side on each side.
    public var margin = 0.5
    /// The side, in pixels, the face is shrunk to (at least dlib's 80-pixel detection window).
    public var faceSidePixels = 100
    /// Made on first use: most streams never need it (every face found by HOG).
    private var detector: FaceDetector?

    public init() {}

    /// The verdict for the face in `box` of `image`.
    public func uprightness(of box: FaceBox, in image: GrayImage) throws -> FaceUprightness {
        let side = Swift.max(box.width, box.height)
        let grow = Int((margin * Double(side)).rounded())
        let left = Swift.max(0, box.left - grow), top = Swift.max(0, box.top - grow)
        let right = Swift.min(image.width, box.right + 1 + grow), bottom = Swift.min(image.height, box.bottom + 1 + grow)
        let factor = Swift.max(1, side / faceSidePixels)
        guard right - left >= 2 * factor, bottom - top >= 2 * factor else { return .unconfirmed }
        let part = image.downscaled(by: factor, x: left, y: top, width: right - left, height: bottom - top)
        let upsample = side / factor < 80 + 8
        // The smallest face that counts: half the tracked one (a face-like patch of the collar or
        // the background is not the face).
        let smallest = Double(side) / Double(factor) / 2
        let detector = try self.detector ?? FaceDetector()
        self.detector = detector
        for quarterTurns in 0..<4 {
            let turned = part.turnedClockwise(quarterTurns: quarterTurns)
            let faces = try detector.detect(turned, upsample: upsample)
            if faces.contains(where: { Double(Swift.max($0.width, $0.height)) >= smallest }) {
                return quarterTurns == 0 ? .upright : .turned(clockwiseDegrees: 90 * quarterTurns)
            }
        }
        return .unconfirmed
    }
}
