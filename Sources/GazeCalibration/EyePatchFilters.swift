import GazeModel

/// Filters of the stored eye patches for the candidate sets that guard against glasses' light: a
/// reflection of the screen, a glint, a rim's bright edge.
///
/// Each writes both patches normalised as `EyeDetailFeatures.normalisedPatches` does (mean 0,
/// standard deviation 1, participant's left eye first), after its own change to the pixels.
enum EyePatchFilters {
    /// A pixel at or above this level is saturated: a glint or the screen's reflection, never the eye.
    static let saturated = 250.0
    /// A pixel more than this many robust standard deviations (1.4826 × the median absolute
    /// deviation, at least 2 gray levels) above its patch's median is a specular highlight.
    static let highlightDeviations = 3.0

    /// Both patches with every specular pixel (saturated, or a highlight: above) replaced by its
    /// patch's median before normalising, so a reflection on a lens neither adds nor moves a bright
    /// spot the linear map would read as gaze. Returns how many pixels were replaced.
    @discardableResult
    static func clippedPatches(_ appearance: EyeAppearance, into output: UnsafeMutablePointer<Double>) -> Int {
        var replaced = 0
        let count = EyeAppearance.patchPixels
        for eye in 0..<2 {
            let base = eye * count
            let pixels = (0..<count).map { Double(appearance.patches[base + $0]) }
            let middle = median(pixels)
            let deviation = Swift.max(1.4826 * median(pixels.map { abs($0 - middle) }), 2)
            let limit = Swift.min(middle + highlightDeviations * deviation, saturated)
            for k in 0..<count {
                let specular = pixels[k] >= limit && pixels[k] > middle
                output[base + k] = specular ? middle : pixels[k]
                if specular { replaced += 1 }
            }
            normalise(output + base, count: count)
        }
        return replaced
    }

    /// Both patches as ranks: each pixel's rank among its patch's pixels (ties share their mean
    /// rank), then normalised. Any change of brightness or contrast that keeps the pixels' order
    /// (a lens's haze, a dimmer eye behind a tinted lens) leaves them unchanged.
    static func rankedPatches(_ appearance: EyeAppearance, into output: UnsafeMutablePointer<Double>) {
        let count = EyeAppearance.patchPixels
        for eye in 0..<2 {
            let base = eye * count
            let order = (0..<count).sorted { appearance.patches[base + $0] < appearance.patches[base + $1] }
            var start = 0
            while start < count {
                var end = start
                let value = appearance.patches[base + order[start]]
                while end + 1 < count && appearance.patches[base + order[end + 1]] == value { end += 1 }
                let rank = Double(start + end) / 2
                for k in start...end { output[base + order[k]] = rank }
                start = end + 1
            }
            normalise(output + base, count: count)
        }
    }

    /// Both patches high-passed: every pixel less the mean of its 3 × 3 neighbourhood (the patch's
    /// edge pixels repeated beyond it), then normalised. A brightness that changes smoothly across
    /// the patch (a lens's haze, the body of a reflection) leaves them unchanged.
    static func highPassedPatches(_ appearance: EyeAppearance, into output: UnsafeMutablePointer<Double>) {
        let width = EyeAppearance.patchWidth, height = EyeAppearance.patchHeight, count = EyeAppearance.patchPixels
        for eye in 0..<2 {
            let base = eye * count
            for row in 0..<height {
                for column in 0..<width {
                    var sum = 0.0
                    for dy in -1...1 {
                        for dx in -1...1 {
                            let y = Swift.min(Swift.max(row + dy, 0), height - 1), x = Swift.min(Swift.max(column + dx, 0), width - 1)
                            sum += Double(appearance.patches[base + y * width + x])
                        }
                    }
                    output[base + row * width + column] = Double(appearance.patches[base + row * width + column]) - sum / 9
                }
            }
            normalise(output + base, count: count)
        }
    }

    /// Columns left out at each side and rows at the top and bottom by `innerPatches`.
    static let innerMargin = (columns: 2, rows: 1)
    /// Pixels of one patch's inner part: 12 × 6.
    static let innerPixels = (EyeAppearance.patchWidth - 2 * innerMargin.columns) * (EyeAppearance.patchHeight - 2 * innerMargin.rows)

    /// Each patch's inner pixels (rows top to bottom), normalised over themselves: `innerPixels`
    /// values a patch, participant's left eye first.
    static func innerPatches(_ appearance: EyeAppearance, into output: UnsafeMutablePointer<Double>) {
        let width = EyeAppearance.patchWidth, height = EyeAppearance.patchHeight
        var index = 0
        for eye in 0..<2 {
            let start = index
            for row in innerMargin.rows..<(height - innerMargin.rows) {
                for column in innerMargin.columns..<(width - innerMargin.columns) {
                    output[index] = Double(appearance.patches[eye * EyeAppearance.patchPixels + row * width + column])
                    index += 1
                }
            }
            normalise(output + start, count: innerPixels)
        }
    }

    /// `values` to mean 0 and standard deviation 1 (at least 1), in place.
    static func normalise(_ values: UnsafeMutablePointer<Double>, count: Int) {
        var sum = 0.0, squares = 0.0
        for k in 0..<count {
            sum += values[k]
            squares += values[k] * values[k]
        }
        let mean = sum / Double(count)
        let deviation = Swift.max((squares / Double(count) - mean * mean).squareRoot(), 1)
        for k in 0..<count { values[k] = (values[k] - mean) / deviation }
    }
}
