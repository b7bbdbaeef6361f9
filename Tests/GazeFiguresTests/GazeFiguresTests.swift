import Foundation
import GazeAnalysis
import GazeCapture
import GazeFigures
import GazeModel
import Testing
import TestSupport

@Suite("figures")
struct GazeFiguresTests {
    @Test("a PNG written by PNGEncoder decodes in FFmpeg to the pixels written")
    func pngDecodes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // 70,000 pixels: more than one stored deflate block.
        let width = 350, height = 200
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for row in 0..<height {
            for column in 0..<width {
                let value = UInt8((row * 7 + column * 3) % 256)
                pixels.replaceSubrange((row * width + column) * 4..<(row * width + column + 1) * 4, with: [value, value, value, 255])
            }
        }
        let path = folder.path("pattern.png")
        try Data(PNGEncoder(width: width, height: height, pixels: pixels).bytes).write(to: URL(fileURLWithPath: path))

        let image = try #require(try VideoFileSource(path: path).nextFrame()).image

        #expect(image.width == width && image.height == height)
        for (column, row) in [(0, 0), (349, 0), (17, 123), (349, 199)] {
            #expect(Int(image[column, row]) == (row * 7 + column * 3) % 256, "pixel (\(column), \(row))")
        }
    }

    @Test("the density is gaze time per square degree: one second at one point integrates to one second, peaked there")
    func densityUnits() {
        // 60 samples 1/60 s apart at (400, 300) on an 800×600 screen, 40 points per degree.
        let samples = (0..<60).map { GazeSample(timestampSeconds: 100 + Double($0) / 60, x: 400, y: 300, orientation: 3) }
        let density = GazeDensity(samples: samples, screenWidth: 800, screenHeight: 600, pointsPerDegree: 40,
                                  sigmaDegrees: 1, cellPoints: 4)
        let cellSquareDegrees = (4.0 / 40) * (4.0 / 40)

        let total = density.values.reduce(0, +) * cellSquareDegrees

        #expect(abs(total - 1) < 0.01, "\(total) s")
        let peakIndex = density.values.firstIndex(of: density.peak)!
        #expect(peakIndex % density.columns == 100 && peakIndex / density.columns == 75)
        // A 2-D Gaussian of σ = 1° has 1 / (2π σ²) per square degree at its peak.
        #expect(abs(density.peak - 1 / (2 * Double.pi)) < 0.02, "\(density.peak)")
        // One σ (40 points = 10 cells) to the right: exp(−½) of the peak.
        let oneSigma = density.values[75 * density.columns + 110]
        #expect(abs(oneSigma / density.peak - exp(-0.5)) < 0.05)
    }

    @Test("viridis gets lighter from 0 to 1 at every step")
    func colourMapLightness() {
        var previous = -1.0
        for step in 0...100 {
            let (r, g, b) = ColourMap.rgb(Double(step) / 100)
            let luma = 0.2126 * Double(r) + 0.7152 * Double(g) + 0.0722 * Double(b)
            #expect(luma > previous, "step \(step)")
            previous = luma
        }
        #expect(ColourMap.hex(0) == "#440154" && ColourMap.hex(1) == "#fde725")
    }

    @Test("rendered, gaze beyond the screen stays inside the screen's border; the colour scale is drawn",
          .enabled(if: SVGRasterizer.renderer != nil, "needs rsvg-convert (apt-get install librsvg2-bin)"))
    func clippedToScreen() throws {
        // A scan path from the screen's centre to far right of it, 1 s at each end.
        var samples: [GazeSample] = []
        for (index, x) in [600.0, 2400].enumerated() {
            for frame in 0..<60 {
                samples.append(GazeSample(timestampSeconds: Double(index) + Double(frame) / 60, x: x, y: 400, orientation: 3))
            }
        }
        let plot = ScanPathPlot(screenWidth: 1200, screenHeight: 800)
        let svg = plot.svg(samples: samples, fixations: [])
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("plot.png")
        try SVGRasterizer.png(svg).write(to: URL(fileURLWithPath: path))

        let image = try #require(try VideoFileSource(path: path).nextFrame()).image

        #expect(image.width == 1200 + 40 + 110)
        // Inside the screen, at the dwelt centre: the heatmap's brightest colour (yellow, light).
        #expect(image[20 + 600, 20 + 400] > 180)
        // In the margin right of the screen, on the path's row, left of the colour scale: white.
        #expect(image[20 + 1200 + 10, 20 + 400] > 250)
        #expect(svg.contains("gaze s/deg²") && svg.contains("clip-path=\"url(#screen-clip)\""))
    }
}

extension GazeFiguresTests {
    @Test("a PNG's image data is compressed: a flat 400 × 300 image takes a small fraction of its raw bytes, and equal pixels give equal bytes")
    func pngCompressed() throws {
        let pixels: [UInt8] = (0..<(400 * 300 * 4)).map { $0 % 4 == 3 ? 255 : 40 }
        let bytes = PNGEncoder(width: 400, height: 300, pixels: pixels).bytes
        #expect(bytes.count < pixels.count / 50, "\(bytes.count) bytes for \(pixels.count) bytes of pixels")
        #expect(bytes == PNGEncoder(width: 400, height: 300, pixels: pixels).bytes)
    }
}
