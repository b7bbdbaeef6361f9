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
    /// face it cannot confirm), or found it only with a filter for faces turned to one side whose
    /// turn the fit cannot represent (`UprightRule`): its fits are not reported.
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

/// Which finds of the relaxed HOG look (step 3 of `UprightFaceCheck`) make a face upright, and
/// whether a find by one of HOG's filters for faces turned to the side needs a fit turned that way.
public enum UprightRule: String, Sendable, CaseIterable {
    /// This version's. `turnedFits`, except that a face found by a side filter whose fit's yaw is
    /// not turned that way is unconfirmed only when the fit's outline is (`outlineTurn`: the nose off the jaw
    /// line's middle that way by at least `minimumOutlineTurn`): a fit whose pose reads frontal
    /// while its jaw line reads turned is inconsistent, one the landmark model could not make
    /// agree with the face. A frontal face seen from below that a side filter outscores has a
    /// symmetric fit (an outline turn of 0.05 or less on the blink clips' frames), and is kept.
    case turnedOutlines
    /// `turnedFits`, except that a face found by a side filter whose fit is not turned that way is
    /// still upright when HOG's front filters alone, at the relaxed threshold, find it around its box
    /// (`UprightFaceCheck.frontFiltersFind`): dlib keeps only the best-scoring filter's find, so a
    /// frontal face seen from below or turned 30° that a side filter outscores is still one a front
    /// filter finds; a profile is not. An extra HOG look, only for such finds. A candidate: the
    /// front filters alone find the portrait turned 50° too (score 0.64, above dlib's threshold),
    /// and score frontal faces seen from below lower (0.03–0.15), so no threshold parts them.
    case turnedFitsOrFront
    /// `frontFilters`, and a face any HOG look found with a filter for faces turned to the side
    /// is upright only when the fit's yaw is turned that way by at least
    /// `UprightRule.minimumSideYawDegrees`: a fit of a frontal shape (yaw near 0, or turned the
    /// other way) over a face HOG saw turned is a fit collapsed onto what the landmark model can
    /// represent, and is unconfirmed. A candidate, not the default: on the blink clip seen from
    /// below (`Scripts/blink-standins.sh`) it cost one of five labelled blinks (frontal faces a
    /// side filter outscores, whose fits are symmetric: `turnedOutlines` keeps them).
    case turnedFits
    /// A find by one of HOG's front filters (a face seen from the front, upright or tilted in the
    /// image): a face found only by a filter for faces turned to the side is unconfirmed. The
    /// rule of the version before.
    case frontFilters
    /// A find by any filter: the rule of the version before that, which reported profiles (found
    /// by the CNN, and by the relaxed look's side filters) with a collapsed, frontal fit.
    case anyFilter

    /// The filters whose find makes a face upright.
    public var filters: Set<HOGFilter> {
        switch self {
        case .turnedOutlines, .turnedFitsOrFront, .turnedFits, .frontFilters: [.front, .frontRotatedLeft, .frontRotatedRight]
        case .anyFilter: Set(HOGFilter.allCases)
        }
    }

    /// The least yaw (degrees, the way the filter's faces look) a fit of a face found by a filter
    /// for faces turned to the side must show under `turnedFits` and `turnedFitsOrFront`.
    public static let minimumSideYawDegrees = 10.0

    /// The least outline turn (`outlineTurn`, the filter's way) that makes a fit not turned by
    /// `minimumSideYawDegrees` unconfirmed under `turnedOutlines`.
    public static let minimumOutlineTurn = 0.15

    /// Whether the rule asks for the fit's yaw (it judges side filters' finds by their fits).
    public var judgesFits: Bool { self != .frontFilters && self != .anyFilter }

    /// How far the fit's outline says the face is turned: the nose tip's (point 30) offset from the
    /// middle of the jaw line's ends (points 0 and 16), over the outer eye corners' distance (36–45),
    /// positive when the nose lies towards the image's left (the sign of yaw). About 0 for a
    /// frontal fit; 0.27–0.50 on the fits of faces turned 30–50° (`Scripts/face_standins.py`).
    public static func outlineTurn(of fit: FaceLandmarks) -> Double {
        let points = fit.points
        let eyes = points[36].distance(to: points[45])
        guard eyes > 0 else { return 0 }
        return ((points[0].x + points[16].x) / 2 - points[30].x) / eyes
    }

    /// The verdict on a face HOG found with `filter` (nil: not by HOG) whose fit has yaw
    /// `fitYawDegrees` (docs/ExportFormat.md's sign: positive towards the image's left), before
    /// any further look: unconfirmed under a rule that `judgesFits` when a filter for faces looking
    /// to one side found it and the fit is not turned that way by `minimumSideYawDegrees`; upright
    /// otherwise. Under `turnedFitsOrFront` an unconfirmed verdict is final only when the front
    /// filters' look does not find the face (`UprightFaceCheck.verdict(onFind:…)`).
    /// Under `turnedOutlines` the fit's `outlineTurn` (nil: 0) must also be turned the filter's way
    /// by `minimumOutlineTurn` for the face to be unconfirmed.
    public func verdict(filter: HOGFilter?, fitYawDegrees: Double, outlineTurn: Double? = nil) -> FaceUprightness {
        guard judgesFits, let filter, filter.isTurned else { return .upright }
        let sign = filter == .lookingLeft ? 1.0 : -1.0
        guard sign * fitYawDegrees < Self.minimumSideYawDegrees else { return .upright }
        guard self == .turnedOutlines else { return .unconfirmed }
        return sign * (outlineTurn ?? 0) >= Self.minimumOutlineTurn ? .unconfirmed : .upright
    }
}

/// Decides how a face the CNN found stands: the part of the frame around its box, as it is and
/// turned by 90°, 180° and 270°, shown to the frontal HOG detector and, when it finds no face in
/// any of them, to the CNN.
///
/// 1. HOG (dlib's threshold, 0) finds the face as shown: upright, unless a filter for faces turned
///    to one side found it and `rule` finds the fit at odds with it (by default `turnedOutlines`:
///    the fit's yaw not turned that way, its outline turned that way); only turned by 90°, 180° or
///    270°: turned. A turned video's faces end here (HOG scores 1.5–2.6 in the right turn).
/// 2. HOG finds none (thick frames, dark lenses, a hand at the chin: faces the CNN stage exists
///    for, which HOG scores between −0.6 and 0): the CNN looks at the four turns. A turn it scores
///    above the frame as shown says the picture is turned (on the shared faces turned by 90°
///    the CNN scores 1.04–1.08 in the right turn, 0.1–0.95 in the others).
/// 3. Else the face is upright when HOG, with its threshold lowered to `relaxedThreshold`, still
///    finds it as shown with a filter `rule` allows (by default a front filter: the frontal faces above
///    score −0.6 to 0 there, and every other turn of them −0.78 or less); otherwise it is
///    unconfirmed. Meant for a profile: the CNN finds it, HOG at its own threshold does not (its
///    range ends near 45° of yaw), and a relaxed look that takes any filter let two labelled
///    profiles (−55°, +71°) through with a fit collapsed to a frontal shape (yaw −0.1°, +4.5°).
///    On faces turned 50–70° (stand-ins, docs/ExportFormat.md) the relaxed look found some only
///    with a side filter, and their fits had collapsed likewise; frontal faces behind thick rims
///    or above a hand were found by a front filter.
///
/// Runs only when a face is acquired by the CNN (at most once per acquisition), on a part of
/// about 2 × 2 box sides shrunk so the face is 100–199 pixels across (a part of 200–400 pixels
/// square): four HOG looks, and for a face HOG cannot see four CNN looks, each on half to twice
/// the pixels of the CNN stage's own look at the frame shrunk to 320 pixels across (not timed).
/// Not thread-safe (it owns detectors): one per tracker.
public final class UprightFaceCheck {
    /// The part looked at: the box grown by this fraction of its side on each side.
    public var margin = 0.5
    /// The side, in pixels, the face is shrunk to (at least dlib's 80-pixel detection window).
    public var faceSidePixels = 100
    /// HOG's threshold for step 3's look at the face as shown (dlib's own threshold is 0).
    public var relaxedThreshold = -1.0
    /// The least score of HOG's front filters alone that confirms a face a side filter found with a
    /// fit not turned its way (`UprightRule.turnedFitsOrFront`): dlib's own threshold. At
    /// `relaxedThreshold` (−1) they find the portrait turned 50° too (docs/ExportFormat.md).
    public var frontThreshold = 0.0
    /// Which finds of step 3's relaxed look make a face upright.
    public var rule: UprightRule
    /// The CNN model for step 2 (nil: no step 2).
    public let cnnModelPath: String?
    /// Made on first use: most streams never need them (every face found by HOG).
    private var detector: FaceDetector?
    private var cnn: CNNFaceDetector?

    public init(cnnModelPath: String? = nil, rule: UprightRule = .turnedOutlines) {
        self.cnnModelPath = cnnModelPath
        self.rule = rule
    }

    /// The verdict for the face in `box` of `image`, whose fit has yaw `fitYawDegrees` (what
    /// `rule` asks of a face HOG finds with a filter for faces turned to the side; nil: no fit to
    /// judge, any filter's find as shown is upright).
    public func uprightness(of box: FaceBox, in image: GrayImage, fitYawDegrees: Double? = nil,
                            outlineTurn: Double? = nil) throws -> FaceUprightness {
        guard let look = part(around: box, in: image) else { return .unconfirmed }
        let detector = try self.detector ?? FaceDetector()
        self.detector = detector
        let turns = (0..<4).map { look.image.turnedClockwise(quarterTurns: $0) }
        for quarterTurns in 0..<4 {
            let faces = try detector.detect(turns[quarterTurns], upsample: look.upsample)
            if let face = faces.first(where: look.isTheFace) {
                guard quarterTurns == 0 else { return .turned(clockwiseDegrees: 90 * quarterTurns) }
                return try verdict(filter: face.hogFilter, fitYawDegrees: fitYawDegrees, outlineTurn: outlineTurn, look: look)
            }
        }
        if let quarterTurns = try cnnPreferredTurn(turns, look: look) {
            return .turned(clockwiseDegrees: 90 * quarterTurns)
        }
        let relaxed = try detector.detections(turns[0], upsample: look.upsample, threshold: relaxedThreshold)
        return relaxed.contains { look.isTheFace($0.box) && rule.filters.contains($0.filter) } ? .upright : .unconfirmed
    }

    /// The verdict on a face a HOG stage found in `box` of `image` with `filter` at HOG's own
    /// threshold, whose fit has yaw `fitYawDegrees` (nil: not judged, upright): `rule`'s verdict
    /// (`UprightRule.verdict`), and under `turnedFitsOrFront` a fit at odds with a side filter is
    /// upright when `frontFiltersFind` the face.
    public func verdict(onFind box: FaceBox, filter: HOGFilter?, in image: GrayImage, fitYawDegrees: Double?,
                        outlineTurn: Double? = nil) throws -> FaceUprightness {
        guard let fitYawDegrees, rule.verdict(filter: filter, fitYawDegrees: fitYawDegrees, outlineTurn: outlineTurn) != .upright
        else { return .upright }
        guard rule == .turnedFitsOrFront else { return .unconfirmed }
        guard let look = part(around: box, in: image) else { return .unconfirmed }
        return try verdict(filter: filter, fitYawDegrees: fitYawDegrees, outlineTurn: outlineTurn, look: look)
    }

    /// Whether HOG's front filters alone find the face in `box` of `image` as the frame shows it
    /// (the part around it, as the check looks at it) scoring `frontThreshold` or more.
    public func frontFiltersFind(_ box: FaceBox, in image: GrayImage) throws -> Bool {
        guard let look = part(around: box, in: image) else { return false }
        return try frontFiltersFind(look)
    }

    /// The best score of HOG's front filters alone on the face in `box` of `image` (the part around
    /// it, as the check looks at it), down to −2; nil when they find nothing of its size there.
    public func frontFilterScore(_ box: FaceBox, in image: GrayImage) throws -> Double? {
        guard let look = part(around: box, in: image) else { return nil }
        return try frontFilterScore(look, threshold: -2)
    }

    private func verdict(filter: HOGFilter?, fitYawDegrees: Double?, outlineTurn: Double?, look: Look) throws -> FaceUprightness {
        guard let fitYawDegrees else { return .upright }
        let verdict = rule.verdict(filter: filter, fitYawDegrees: fitYawDegrees, outlineTurn: outlineTurn)
        guard verdict == .unconfirmed, rule == .turnedFitsOrFront else { return verdict }
        return try frontFiltersFind(look) ? .upright : .unconfirmed
    }

    private func frontFiltersFind(_ look: Look) throws -> Bool {
        try frontFilterScore(look, threshold: frontThreshold) != nil
    }

    private func frontFilterScore(_ look: Look, threshold: Double) throws -> Double? {
        let detector = try self.detector ?? FaceDetector()
        self.detector = detector
        let found = try detector.detections(look.image, upsample: look.upsample, threshold: threshold,
                                            filters: UprightRule.frontFilters.filters)
        return found.filter { look.isTheFace($0.box) }.map(\.box.score).max()
    }

    /// The part of `image` around `box`, shrunk so the face is `faceSidePixels` to twice that
    /// across; nil when too little of it is in the frame.
    private func part(around box: FaceBox, in image: GrayImage) -> Look? {
        let side = Swift.max(box.width, box.height)
        let grow = Int((margin * Double(side)).rounded())
        let left = Swift.max(0, box.left - grow), top = Swift.max(0, box.top - grow)
        let right = Swift.min(image.width, box.right + 1 + grow), bottom = Swift.min(image.height, box.bottom + 1 + grow)
        let factor = Swift.max(1, side / faceSidePixels)
        guard right - left >= 2 * factor, bottom - top >= 2 * factor else { return nil }
        let part = image.downscaled(by: factor, x: left, y: top, width: right - left, height: bottom - top)
        // The smallest face that counts: half the tracked one (a face-like patch of the collar or
        // the background is not the face).
        return Look(image: part, upsample: side / factor < 80 + 8, smallest: Double(side) / Double(factor) / 2)
    }

    /// The quarter turn (1–3) in which the CNN scores the face above the frame as shown, the
    /// highest such; nil when the frame as shown scores highest, or without the CNN.
    private func cnnPreferredTurn(_ turns: [GrayImage], look: Look) throws -> Int? {
        guard let cnnModelPath else { return nil }
        let cnn = try self.cnn ?? CNNFaceDetector(path: cnnModelPath)
        self.cnn = cnn
        let scores = try turns.map { try cnn.detect($0).filter(look.isTheFace).map(\.score).max() ?? -Double.infinity }
        guard let best = (1..<4).max(by: { scores[$0] < scores[$1] }), scores[best] > scores[0] else { return nil }
        return best
    }

    /// A look at the part around a face.
    private struct Look {
        var image: GrayImage
        /// Whether HOG needs the part doubled (a face under its 80-pixel window with some room).
        var upsample: Bool
        /// The side of the smallest box that counts as the face.
        var smallest: Double

        func isTheFace(_ box: FaceBox) -> Bool { Double(Swift.max(box.width, box.height)) >= smallest }
    }
}
