import GazeModel

/// The eye-patch features of the appearance sets, read from a frame's stored patches
/// (`EyeAppearance`): each patch normalised, and for the candidate sets what they add to it.
///
/// Every set reads the same stored 16 × 8 patches, so a frame recorded for any set can be mapped
/// by every other.
enum EyeDetailFeatures {
    static let width = EyeAppearance.patchWidth
    static let height = EyeAppearance.patchHeight
    /// Horizontal differences of one patch: (width − 1) × height.
    static let gradientCount = (width - 1) * height
    /// Of one eye: the darkness centroid across and down the patch, and the square of its offset
    /// across from the patch's middle.
    static let irisCount = 3

    /// Both patches, each normalised to mean 0 and standard deviation 1 (at least 1 gray level),
    /// participant's left eye first, written to `output` (2 × `patchPixels` values).
    static func normalisedPatches(_ appearance: EyeAppearance, into output: UnsafeMutablePointer<Double>) {
        appearance.patches.withUnsafeBufferPointer { pixels in
            for eye in 0..<2 {
                let base = eye * EyeAppearance.patchPixels
                var sum = 0.0, squares = 0.0
                for k in 0..<EyeAppearance.patchPixels {
                    let value = Double(pixels[base + k])
                    sum += value
                    squares += value * value
                }
                let count = Double(EyeAppearance.patchPixels)
                let mean = sum / count
                let deviation = Swift.max((squares / count - mean * mean).squareRoot(), 1)
                for k in 0..<EyeAppearance.patchPixels {
                    output[base + k] = (Double(pixels[base + k]) - mean) / deviation
                }
            }
        }
    }

    /// The mean of the two normalised patches, pixel by pixel (`patchPixels` values).
    static func meanPatch(_ appearance: EyeAppearance, into output: UnsafeMutablePointer<Double>) {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * EyeAppearance.patchPixels) { both in
            normalisedPatches(appearance, into: both.baseAddress!)
            for k in 0..<EyeAppearance.patchPixels { output[k] = (both[k] + both[EyeAppearance.patchPixels + k]) / 2 }
        }
    }

    /// Each normalised patch's horizontal differences (the next column's value minus this
    /// column's, row by row), both eyes, from `patches` (the output of `normalisedPatches`): where
    /// the iris's edges and the lids' corners lie across the eye. 2 × `gradientCount` values.
    static func gradients(_ patches: UnsafePointer<Double>, into output: UnsafeMutablePointer<Double>) {
        var index = 0
        for eye in 0..<2 {
            let base = eye * EyeAppearance.patchPixels
            for row in 0..<height {
                for column in 0..<(width - 1) {
                    let k = base + row * width + column
                    output[index] = patches[k + 1] - patches[k]
                    index += 1
                }
            }
        }
    }

    /// Per eye, from its normalised patch: the centroid of the pixels darker than the patch's
    /// mean, each weighed by how much darker (across, 0 → 1 from the image's left; down, 0 → 1),
    /// and the squared offset of the across centroid from the middle — a position of the iris that
    /// keeps moving where the pixels' linear response saturates at the corners. A patch with no
    /// pixel below its mean gives the middle. 2 × `irisCount` values.
    static func irisCentroids(_ patches: UnsafePointer<Double>, into output: UnsafeMutablePointer<Double>) {
        for eye in 0..<2 {
            let base = eye * EyeAppearance.patchPixels
            var weight = 0.0, across = 0.0, down = 0.0
            for row in 0..<height {
                for column in 0..<width {
                    let darkness = Swift.max(0, -patches[base + row * width + column])
                    weight += darkness
                    across += darkness * (Double(column) + 0.5) / Double(width)
                    down += darkness * (Double(row) + 0.5) / Double(height)
                }
            }
            let x = weight > 0 ? across / weight : 0.5, y = weight > 0 ? down / weight : 0.5
            output[eye * irisCount] = x
            output[eye * irisCount + 1] = y
            output[eye * irisCount + 2] = (x - 0.5) * (x - 0.5)
        }
    }
}
