/// What a validation says of a calibration's quality, by the thresholds of webcam eye tracking.
public enum ValidationQuality: Sendable, Equatable {
    /// Every target measured, the accuracy within the threshold.
    case acceptable
    /// A validation target got no gaze samples: the accuracy stands on the others only.
    case targetWithoutSamples
    /// The accuracy is worse than the threshold (usually 1–2.5° for webcam eye tracking).
    case poor

    /// Poor above this mean accuracy, degrees.
    public static let poorAccuracyDegrees = 2.5
    /// Without a viewing geometry: poor above this share of the screen's diagonal.
    public static let poorAccuracyDiagonalShare = 0.05
}

extension ValidationReport {
    /// The quality of this validation on a `screenWidth` × `screenHeight` screen (points): a target
    /// without samples first, then the accuracy in degrees, or without a geometry in points
    /// against the screen's diagonal.
    public func quality(screenWidth: Double, screenHeight: Double) -> ValidationQuality {
        if points.contains(where: { $0.samples == 0 }) { return .targetWithoutSamples }
        let diagonal = (screenWidth * screenWidth + screenHeight * screenHeight).squareRoot()
        let poor = accuracyDegrees.map { $0 > ValidationQuality.poorAccuracyDegrees }
            ?? (accuracyPoints > ValidationQuality.poorAccuracyDiagonalShare * diagonal)
        return poor ? .poor : .acceptable
    }
}
