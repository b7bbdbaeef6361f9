import Foundation

/// Something about the inputs a result should be read with (the analysis still ran): data and a
/// sentence naming no command or flag. The command prints each on stderr.
public enum StimulusWarning: Sendable, Equatable, CustomStringConvertible {
    /// The stimulus's screen rectangle reaches off the session's recorded screen (`onScreenShare`
    /// of its area on it; the screen `width` × `height` points).
    case rectanglePartlyOffScreen(sessionID: String, onScreenShare: Double, screenWidth: Double, screenHeight: Double)
    /// An area of interest reaches outside the stimulus's pixels (`insideShare` of its bounding box inside).
    case areaPartlyOutsideStimulus(area: String, insideShare: Double, widthPixels: Int, heightPixels: Int)
    /// A keyframed area's keyframes reach outside the stimulus's duration.
    case areaPartlyOutsideDuration(area: String, firstSeconds: Double, lastSeconds: Double, durationSeconds: Double)
    /// The session's calibration had no screen size or viewing distance: degrees became points at
    /// `pointsPerDegree` (assumed).
    case assumedScale(sessionID: String, pointsPerDegree: Double)
    /// Recordings left out by a data-quality threshold.
    case excluded(sessionID: String, reason: String)

    public var description: String {
        switch self {
        case let .rectanglePartlyOffScreen(id, share, width, height):
            "session \(id): only \(Self.percent(share)) of the stimulus's rectangle lies on its recorded screen of "
                + "\(StimulusError.number(width))×\(StimulusError.number(height)) points; gaze off the screen is not measured there"
        case let .areaPartlyOutsideStimulus(area, share, width, height):
            "area \"\(area)\" lies \(Self.percent(1 - share)) outside the stimulus's \(width)×\(height) pixels; "
                + "only its part on the stimulus can hold gaze"
        case let .areaPartlyOutsideDuration(area, first, last, duration):
            "area \"\(area)\" is keyframed from \(StimulusError.number(first)) s to \(StimulusError.number(last)) s but the "
                + "stimulus lasts \(StimulusError.number(duration)) s; it counts only while the stimulus is shown"
        case let .assumedScale(id, pointsPerDegree):
            "session \(id): its calibration had no screen size or viewing distance, so \(StimulusError.number(pointsPerDegree)) "
                + "points per degree were assumed (fixations, the heatmap's spread and crop margins are in degrees)"
        case let .excluded(id, reason):
            "session \(id) left out: \(reason)"
        }
    }

    static func percent(_ share: Double) -> String { String(format: "%.0f %%", (share * 100).rounded()) }
}

/// How an area of interest fits a stimulus of a given size and duration.
public enum AOIFit {
    /// The warnings for areas that reach outside the stimulus's pixels or, for keyframed areas, its
    /// duration (`durationSeconds` nil: an image, shown as long as the session's viewing);
    /// refuses (`StimulusError.badAOIs`) an area wholly outside either.
    public static func check(_ areas: [AreaOfInterest], widthPixels: Int, heightPixels: Int,
                             durationSeconds: Double?, source: String) throws -> [StimulusWarning] {
        var warnings: [StimulusWarning] = []
        for area in areas {
            let share = insideShare(area, width: Double(widthPixels), height: Double(heightPixels))
            guard share > 0 || hullMeets(area, width: Double(widthPixels), height: Double(heightPixels)) else {
                throw StimulusError.badAOIs(source: source, reason: "area \"\(area.name)\" lies wholly outside the stimulus's "
                                            + "\(widthPixels)×\(heightPixels) pixels (x right, y down from its top-left)")
            }
            if share < 1 {
                warnings.append(.areaPartlyOutsideStimulus(area: area.name, insideShare: share, widthPixels: widthPixels,
                                                           heightPixels: heightPixels))
            }
            guard !area.isStatic, let duration = durationSeconds else { continue }
            let first = area.keyframes.first!.seconds, last = area.keyframes.last!.seconds
            guard first < duration, last >= 0 else {
                throw StimulusError.badAOIs(source: source, reason: "area \"\(area.name)\" is keyframed from "
                    + "\(StimulusError.number(first)) s to \(StimulusError.number(last)) s, wholly outside the stimulus's "
                    + "\(StimulusError.number(duration)) s")
            }
            if first < 0 || last > duration {
                warnings.append(.areaPartlyOutsideDuration(area: area.name, firstSeconds: first, lastSeconds: last,
                                                           durationSeconds: duration))
            }
        }
        return warnings
    }

    /// Whether the box around every keyframe's shape meets the stimulus (a keyframed area may
    /// cross it between keyframes that are each outside).
    static func hullMeets(_ area: AreaOfInterest, width: Double, height: Double) -> Bool {
        let boxes = area.keyframes.map(\.shape.bounds)
        let minX = boxes.map(\.minX).min()!, maxX = boxes.map(\.maxX).max()!
        let minY = boxes.map(\.minY).min()!, maxY = boxes.map(\.maxY).max()!
        return minX < width && maxX > 0 && minY < height && maxY > 0
    }

    /// The share of the area's bounding boxes (at every keyframe, their union's area summed) inside the stimulus.
    static func insideShare(_ area: AreaOfInterest, width: Double, height: Double) -> Double {
        var total = 0.0, inside = 0.0
        for frame in area.keyframes {
            let box = frame.shape.bounds
            let area = (box.maxX - box.minX) * (box.maxY - box.minY)
            let clipped = Swift.max(0, Swift.min(box.maxX, width) - Swift.max(box.minX, 0))
                * Swift.max(0, Swift.min(box.maxY, height) - Swift.max(box.minY, 0))
            total += area
            inside += clipped
        }
        return total > 0 ? inside / total : 0
    }
}
