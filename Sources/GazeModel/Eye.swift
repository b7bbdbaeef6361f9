/// Which of the participant's eyes (ARKit's convention: `_L` is the participant's left).
///
/// In an unmirrored camera image the participant's left eye is on the image's right:
/// dlib points 42–47. The participant's right eye is dlib points 36–41.
public enum Eye: String, Sendable, CaseIterable {
    case left
    case right

    /// The six dlib points of this eye's contour, starting at the corner on the image's left
    /// and going clockwise in the image: corner, two upper lid points, corner, two lower lid points.
    public var landmarkIndices: Range<Int> {
        switch self {
        case .left: 42..<48
        case .right: 36..<42
        }
    }
}
