import GazeCore
import GazeModel

/// A face cut from a gray frame as the expression model expects it: 64 × 64 gray values scaled
/// to −1…1, rows from the top.
///
/// The square (docs/Expressions.md): centred on the box of the 68 landmarks, raised by a tenth of
/// its side, with a side 1.2 times the box's larger dimension, so it runs from the forehead
/// to just under the chin and from ear to ear, as the face boxes FER-2013's faces were cut with
/// (and `fer`'s own detectors give) do. Each output pixel is the bilinear sample of the frame at
/// its centre (OpenCV's `INTER_LINEAR` resize of that square); outside the frame, the nearest edge.
public struct FaceCrop: Sendable, Equatable {
    /// Pixels on a side of the model's input.
    public static let side = 64
    /// The square's side over the landmarks' box's larger dimension, and its rise over its side.
    public static let margin = 1.2, rise = 0.1

    /// `side` × `side` values, −1 (black) … 1 (white), rows packed.
    public var values: [Float]
    /// The square in the frame: top-left corner and side, in pixels.
    public var origin: Point2
    public var sidePixels: Double

    public init(image: GrayImage, landmarks: FaceLandmarks) {
        let xs = landmarks.points.map(\.x), ys = landmarks.points.map(\.y)
        let width = xs.max()! - xs.min()!, height = ys.max()! - ys.min()!
        sidePixels = Swift.max(Swift.max(width, height) * Self.margin, 1)
        let centre = Point2((xs.max()! + xs.min()!) / 2, (ys.max()! + ys.min()!) / 2 - Self.rise * sidePixels)
        origin = Point2(centre.x - sidePixels / 2, centre.y - sidePixels / 2)
        let step = sidePixels / Double(Self.side)
        var values = [Float](repeating: 0, count: Self.side * Self.side)
        for row in 0..<Self.side {
            let y = origin.y + (Double(row) + 0.5) * step - 0.5
            for column in 0..<Self.side {
                let x = origin.x + (Double(column) + 0.5) * step - 0.5
                values[row * Self.side + column] = Float(image.sample(x, y) / 255 * 2 - 1)
            }
        }
        self.values = values
    }
}
