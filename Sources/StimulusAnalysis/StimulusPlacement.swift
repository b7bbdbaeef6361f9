import GazeModel

/// Where a stimulus was shown on the session's screen, and its own pixel grid.
///
/// Stimulus pixels: x right, y down, origin at the stimulus's top-left corner; a screen point maps
/// to the pixel under it when the stimulus fills `screenRect` exactly (uniformly scaled, not stretched).
public struct StimulusPlacement: Sendable, Equatable {
    /// Left edge, top edge, width and height of the shown stimulus, in the session's screen points.
    public let screenX: Double, screenY: Double, screenWidth: Double, screenHeight: Double
    /// The stimulus's own size in pixels.
    public let widthPixels: Int, heightPixels: Int

    /// The largest relative difference between the stimulus's aspect and the rectangle's that
    /// still counts as the same aspect (rounding of a rectangle to whole points).
    public static let aspectTolerance = 0.01

    /// Refuses a rectangle without area and a stimulus of another aspect than the rectangle's.
    public init(screenX: Double, screenY: Double, screenWidth: Double, screenHeight: Double,
                widthPixels: Int, heightPixels: Int) throws {
        guard [screenX, screenY, screenWidth, screenHeight].allSatisfy(\.isFinite), screenWidth > 0, screenHeight > 0 else {
            throw StimulusError.badRectangle(reason: "its width and height must be positive numbers")
        }
        guard widthPixels > 0, heightPixels > 0 else {
            throw StimulusError.badRectangle(reason: "the stimulus has no pixels")
        }
        let stimulusAspect = Double(widthPixels) / Double(heightPixels)
        let rectangleAspect = screenWidth / screenHeight
        guard abs(stimulusAspect / rectangleAspect - 1) <= Self.aspectTolerance else {
            throw StimulusError.aspectMismatch(stimulusWidth: widthPixels, stimulusHeight: heightPixels,
                                               rectangleWidth: screenWidth, rectangleHeight: screenHeight)
        }
        self.screenX = screenX
        self.screenY = screenY
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.widthPixels = widthPixels
        self.heightPixels = heightPixels
    }

    /// Stimulus pixels per screen point (horizontally; vertically it is the same within the tolerance).
    public var pixelsPerPoint: Double { Double(widthPixels) / screenWidth }

    /// The stimulus pixel under a screen point, nil when the point is off the stimulus (outside its
    /// rectangle; the right and bottom edges are outside).
    public func pixel(_ point: Point2) -> Point2? {
        let x = (point.x - screenX) / screenWidth * Double(widthPixels)
        let y = (point.y - screenY) / screenHeight * Double(heightPixels)
        guard x >= 0, y >= 0, x < Double(widthPixels), y < Double(heightPixels) else { return nil }
        return Point2(x, y)
    }
}
