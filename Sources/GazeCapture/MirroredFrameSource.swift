import GazeCore
import GazeModel

/// Frames of a mirrored source (a camera that flips its picture, a selfie-view recording) turned
/// back, left to right, so the participant's right eye is on the image's left as a camera sees it:
/// head yaw keeps its sign and the eyes keep their labels.
public final class MirroredFrameSource: FrameSourceWrapper {
    public let source: FrameSource

    public init(_ source: FrameSource) {
        self.source = source
    }

    public func nextFrame() throws -> Frame? {
        guard var frame = try source.nextFrame() else { return nil }
        frame.image = frame.image.mirrored()
        return frame
    }
}

extension GrayImage {
    /// The image flipped left to right.
    public func mirrored() -> GrayImage {
        var flipped = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            flipped.withUnsafeMutableBufferPointer { target in
                for row in 0..<height {
                    let start = row * width
                    for column in 0..<width { target[start + column] = source[start + width - 1 - column] }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: flipped)
    }
}
