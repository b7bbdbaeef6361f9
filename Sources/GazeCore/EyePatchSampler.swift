import GazeModel

/// Cuts each eye's patch for `EyeAppearance` out of a frame: `patchWidth` × `patchHeight` bilinear
/// samples in the eye's own frame, spanning the eye from corner to corner (see `EyeAppearance`).
///
/// An aligned patch carries where the iris sits between the lids and corners, how far the lids
/// are open and how the light falls, without a pupil detector's all-or-nothing decisions; as in
/// WebGazer, a calibration learns from its pixels. About 2 µs for both eyes.
public enum EyePatchSampler {
    /// Both eyes' patches, participant's left eye first, from the landmarks' eye corners.
    public static func patches(in image: GrayImage, landmarks: FaceLandmarks) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 2 * EyeAppearance.patchPixels)
        for (index, eye) in [Eye.left, Eye.right].enumerated() {
            let corners = landmarks.corners(of: eye)
            sample(image, from: corners.imageLeft, to: corners.imageRight, into: &output, offset: index * EyeAppearance.patchPixels)
        }
        return output
    }

    /// The patch of the eye whose corners are `a` (image's left) and `b` (image's right).
    static func sample(_ image: GrayImage, from a: Point2, to b: Point2, into output: inout [UInt8], offset: Int) {
        let width = EyeAppearance.patchWidth, height = EyeAppearance.patchHeight
        let axis = b - a
        let length = axis.length
        let step = length / Double(width)
        // Unit vectors along the corner line and down its perpendicular.
        let u = length > 0 ? axis / length : Point2(1, 0)
        let v = Point2(-u.y, u.x)
        let centre = Point2((a.x + b.x) / 2, (a.y + b.y) / 2)
        for row in 0..<height {
            let down = (Double(row) + 0.5 - Double(height) / 2) * step
            for column in 0..<width {
                let along = (Double(column) + 0.5 - Double(width) / 2) * step
                let x = centre.x + along * u.x + down * v.x
                let y = centre.y + along * u.y + down * v.y
                output[offset + row * width + column] = UInt8(image.sample(x, y).rounded())
            }
        }
    }
}
