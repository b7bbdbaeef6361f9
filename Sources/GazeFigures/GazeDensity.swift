#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GazeModel

/// Where the gaze dwelt: a Gaussian kernel density of the gaze samples on the screen, in seconds of
/// gaze per square degree of visual angle, on a grid of cells. Each sample weighs the time to the
/// next one (at most `maximumSampleSeconds`, so a gap in the recording adds nothing); the kernel's
/// width is given in degrees, so the same σ means the same on any screen and distance.
public struct GazeDensity: Sendable {
    /// Columns and rows of the grid; cell (0, 0) is the top-left of the screen.
    public let columns: Int
    public let rows: Int
    /// The side of a cell, screen points.
    public let cellPoints: Double
    /// Seconds of gaze per square degree in each cell, row-major.
    public private(set) var values: [Double]

    /// The longest gap between samples counted as gaze time.
    public static let maximumSampleSeconds = 0.1

    /// The density of `samples` on a `screenWidth` × `screenHeight`-point screen with a Gaussian
    /// kernel of `sigmaDegrees`, at `pointsPerDegree`, on cells of `cellPoints`.
    public init(samples: [GazeSample], screenWidth: Double, screenHeight: Double, pointsPerDegree: Double,
                sigmaDegrees: Double, cellPoints: Double) {
        columns = Swift.max(1, Int((screenWidth / cellPoints).rounded(.up)))
        rows = Swift.max(1, Int((screenHeight / cellPoints).rounded(.up)))
        self.cellPoints = cellPoints
        let sigmaCells = sigmaDegrees * pointsPerDegree / cellPoints
        let weights = Self.binned(samples, columns: columns, rows: rows, cellPoints: cellPoints, sigmaCells: sigmaCells)
        let kernel = Self.kernel(sigmaCells: sigmaCells)
        let pad = kernel.count / 2
        let blurred = Self.convolveColumns(Self.convolveRows(weights.values, width: weights.width, kernel: kernel),
                                           width: weights.width, kernel: kernel)
        // The kernel sums to 1 per cell; a cell is (cellPoints / pointsPerDegree)² square degrees.
        let cellSquareDegrees = (cellPoints / pointsPerDegree) * (cellPoints / pointsPerDegree)
        var values = [Double](repeating: 0, count: columns * rows)
        for row in 0..<rows {
            for column in 0..<columns {
                values[row * columns + column] = blurred[(row + pad) * weights.width + column + pad] / cellSquareDegrees
            }
        }
        self.values = values
    }

    /// The highest density, seconds per square degree.
    public var peak: Double { values.max() ?? 0 }

    /// Each sample's time added to its cell on a grid padded by the kernel's reach on every side
    /// (samples off the screen within that reach still add to the screen's edge cells).
    static func binned(_ samples: [GazeSample], columns: Int, rows: Int, cellPoints: Double, sigmaCells: Double)
        -> (values: [Double], width: Int) {
        let pad = Int((3 * sigmaCells).rounded(.up))
        let width = columns + 2 * pad, height = rows + 2 * pad
        var values = [Double](repeating: 0, count: width * height)
        for (index, sample) in samples.enumerated() {
            let next = index + 1 < samples.count ? samples[index + 1].timestampSeconds : sample.timestampSeconds + 1.0 / 60
            let seconds = Swift.min(Swift.max(next - sample.timestampSeconds, 0), maximumSampleSeconds)
            let column = Int((sample.x / cellPoints).rounded(.down)) + pad
            let row = Int((sample.y / cellPoints).rounded(.down)) + pad
            guard column >= 0, column < width, row >= 0, row < height else { continue }
            values[row * width + column] += seconds
        }
        return (values, width)
    }

    /// A normalised 1-D Gaussian reaching 3σ each side.
    static func kernel(sigmaCells: Double) -> [Double] {
        let reach = Int((3 * sigmaCells).rounded(.up))
        guard sigmaCells > 0, reach > 0 else { return [1] }
        let raw = (-reach...reach).map { exp(-Double($0 * $0) / (2 * sigmaCells * sigmaCells)) }
        let sum = raw.reduce(0, +)
        return raw.map { $0 / sum }
    }

    static func convolveRows(_ values: [Double], width: Int, kernel: [Double]) -> [Double] {
        let reach = kernel.count / 2
        var out = [Double](repeating: 0, count: values.count)
        for start in stride(from: 0, to: values.count, by: width) {
            for column in 0..<width where values[start + column] != 0 {
                let value = values[start + column]
                for offset in Swift.max(-reach, -column)...Swift.min(reach, width - 1 - column) {
                    out[start + column + offset] += value * kernel[offset + reach]
                }
            }
        }
        return out
    }

    static func convolveColumns(_ values: [Double], width: Int, kernel: [Double]) -> [Double] {
        let reach = kernel.count / 2
        let height = values.count / width
        var out = [Double](repeating: 0, count: values.count)
        for row in 0..<height {
            for offset in Swift.max(-reach, -row)...Swift.min(reach, height - 1 - row) {
                let weight = kernel[offset + reach]
                let from = row * width, to = (row + offset) * width
                for column in 0..<width where values[from + column] != 0 { out[to + column] += values[from + column] * weight }
            }
        }
        return out
    }

    /// The density as an RGBA image, one pixel per cell: viridis by the share of `scaleMaximum`,
    /// transparent below 1 % of it and more opaque as it rises (fully, 85 %, from 30 % up), so a
    /// stimulus under it stays visible where few looked.
    public func image(scaleMaximum: Double) -> PNGEncoder {
        var pixels = [UInt8](repeating: 0, count: columns * rows * 4)
        for index in 0..<values.count {
            let level = scaleMaximum > 0 ? Swift.min(1, values[index] / scaleMaximum) : 0
            guard level >= 0.01 else { continue }
            let (r, g, b) = ColourMap.rgb(level)
            pixels[index * 4] = r
            pixels[index * 4 + 1] = g
            pixels[index * 4 + 2] = b
            pixels[index * 4 + 3] = UInt8((255 * 0.85 * Swift.min(1, level / 0.3)).rounded())
        }
        return PNGEncoder(width: columns, height: rows, pixels: pixels)
    }
}
