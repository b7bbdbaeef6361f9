import GazeCore
import GazeModel

/// Frames of a source turned clockwise by a quarter turn or more (a camera mounted sideways or
/// upside down), so the face stands upright as dlib's frontal detector and landmark model need.
public final class RotatedFrameSource: FrameSourceWrapper {
    public let source: FrameSource
    public let rotation: FrameRotation

    public init(_ source: FrameSource, rotation: FrameRotation) {
        self.source = source
        self.rotation = rotation
    }

    public var width: Int { rotation.isSideways ? source.height : source.width }
    public var height: Int { rotation.isSideways ? source.width : source.height }

    public func nextFrame() throws -> Frame? {
        guard var frame = try source.nextFrame() else { return nil }
        frame.image = frame.image.turnedClockwise(quarterTurns: rotation.quarterTurns)
        return frame
    }
}

/// A clockwise turn of every frame by a multiple of 90°.
public enum FrameRotation: Int, Sendable, CaseIterable {
    case none = 0
    case clockwise90 = 90
    case clockwise180 = 180
    case clockwise270 = 270

    /// The turn in quarter turns (0–3).
    public var quarterTurns: Int { rawValue / 90 }
    /// Whether the turn swaps width and height.
    public var isSideways: Bool { quarterTurns % 2 == 1 }
}

extension GrayImage {
    /// The image turned clockwise by `quarterTurns` × 90°.
    public func turnedClockwise(quarterTurns: Int) -> GrayImage {
        let turns = ((quarterTurns % 4) + 4) % 4
        if turns == 0 { return self }
        let outWidth = turns == 2 ? width : height, outHeight = turns == 2 ? height : width
        var out = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let (ox, oy): (Int, Int)
                switch turns {
                case 1: (ox, oy) = (height - 1 - y, x)
                case 2: (ox, oy) = (width - 1 - x, height - 1 - y)
                default: (ox, oy) = (y, width - 1 - x)
                }
                out[oy * outWidth + ox] = pixels[y * width + x]
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: out)
    }
}
