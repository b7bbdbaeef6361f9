/// Contrast-limited adaptive histogram equalisation (CLAHE; Zuiderveld 1994), as OpenCV's
/// `createCLAHE` computes it: the image is cut into a grid of tiles; each tile's histogram is
/// clipped at `clipLimit` times its mean bin count (the excess spread over all bins) and turned
/// into a mapping; every pixel takes the bilinear blend of the mappings of the four tiles whose
/// centres surround it.
///
/// Evens out a face lit from one side or washed out by a bright room, so a face detector that
/// looks at gradients (HOG) finds it. About 1 ms at 640×480.
public struct ContrastEqualizer: Sendable {
    public var tilesAcross: Int
    public var tilesDown: Int
    public var clipLimit: Double

    public init(tilesAcross: Int = 8, tilesDown: Int = 8, clipLimit: Double = 2) {
        precondition(tilesAcross >= 1 && tilesDown >= 1 && clipLimit >= 1)
        self.tilesAcross = tilesAcross
        self.tilesDown = tilesDown
        self.clipLimit = clipLimit
    }

    /// The equalised image (same size): each tile's clipped-histogram mapping, then every pixel
    /// blended from the four tiles around it.
    public func apply(_ image: GrayImage) -> GrayImage {
        let grid = TileGrid(width: image.width, height: image.height, across: Swift.min(tilesAcross, image.width),
                            down: Swift.min(tilesDown, image.height))
        let mappings = tileMappings(image, grid)
        return GrayImage(width: image.width, height: image.height, pixels: Self.blend(image, grid, mappings))
    }

    /// How the image is cut into tiles: tile t spans [edge(t), edge(t + 1)).
    struct TileGrid {
        var width: Int
        var height: Int
        var across: Int
        var down: Int
        var tileWidth: Double { Double(width) / Double(across) }
        var tileHeight: Double { Double(height) / Double(down) }
    }

    /// Every tile's mapping (256 levels each, tiles row by row) from its clipped histogram.
    @inline(__always)
    func tileMappings(_ image: GrayImage, _ grid: TileGrid) -> [UInt8] {
        let width = grid.width, across = grid.across, down = grid.down
        let tileWidth = grid.tileWidth, tileHeight = grid.tileHeight
        var mappings = [UInt8](repeating: 0, count: across * down * 256)
        image.pixels.withUnsafeBufferPointer { source in
            var histogram = [Int](repeating: 0, count: 256)
            for ty in 0..<down {
                let y0 = Int((Double(ty) * tileHeight).rounded(.down)), y1 = Int((Double(ty + 1) * tileHeight).rounded(.down))
                for tx in 0..<across {
                    let x0 = Int((Double(tx) * tileWidth).rounded(.down)), x1 = Int((Double(tx + 1) * tileWidth).rounded(.down))
                    for index in 0..<256 { histogram[index] = 0 }
                    for y in y0..<y1 {
                        let row = y * width
                        for x in x0..<x1 { histogram[Int(source[row + x])] += 1 }
                    }
                    let area = Swift.max((x1 - x0) * (y1 - y0), 1)
                    clipAndMap(&histogram, area: area, into: &mappings, base: (ty * across + tx) * 256)
                }
            }
        }
        return mappings
    }

    /// Clips a tile's histogram, hands the excess out evenly (the remainder one by one from bin
    /// 0), and writes its cumulative histogram as a mapping at `base`.
    @inline(__always)
    func clipAndMap(_ histogram: inout [Int], area: Int, into mappings: inout [UInt8], base: Int) {
        let limit = Swift.max(Int(clipLimit * Double(area) / 256), 1)
        var excess = 0
        for index in 0..<256 where histogram[index] > limit {
            excess += histogram[index] - limit
            histogram[index] = limit
        }
        let share = excess / 256, remainder = excess % 256
        for index in 0..<256 { histogram[index] += share + (index < remainder ? 1 : 0) }
        let scale = 255.0 / Double(area)
        var sum = 0
        for index in 0..<256 {
            sum += histogram[index]
            mappings[base + index] = UInt8(Swift.min(255, (Double(sum) * scale).rounded()))
        }
    }

    /// Every pixel through the bilinear blend of the mappings of the four tiles whose centres surround it.
    @inline(__always)
    static func blend(_ image: GrayImage, _ grid: TileGrid, _ mappings: [UInt8]) -> [UInt8] {
        let width = grid.width, height = grid.height, across = grid.across, down = grid.down
        let tileWidth = grid.tileWidth, tileHeight = grid.tileHeight
        var output = [UInt8](repeating: 0, count: width * height)
        image.pixels.withUnsafeBufferPointer { source in
            mappings.withUnsafeBufferPointer { map in
                output.withUnsafeMutableBufferPointer { target in
                    for y in 0..<height {
                        // Position among tile centres.
                        let fy = (Double(y) + 0.5) / tileHeight - 0.5
                        let ty0 = Swift.max(0, Swift.min(down - 1, Int(fy.rounded(.down))))
                        let ty1 = Swift.min(down - 1, ty0 + 1)
                        let wy = Swift.max(0, Swift.min(1, fy - Double(ty0)))
                        for x in 0..<width {
                            let fx = (Double(x) + 0.5) / tileWidth - 0.5
                            let tx0 = Swift.max(0, Swift.min(across - 1, Int(fx.rounded(.down))))
                            let tx1 = Swift.min(across - 1, tx0 + 1)
                            let wx = Swift.max(0, Swift.min(1, fx - Double(tx0)))
                            let value = Int(source[y * width + x])
                            let a = Double(map[(ty0 * across + tx0) * 256 + value])
                            let b = Double(map[(ty0 * across + tx1) * 256 + value])
                            let c = Double(map[(ty1 * across + tx0) * 256 + value])
                            let d = Double(map[(ty1 * across + tx1) * 256 + value])
                            let top = a + (b - a) * wx, bottom = c + (d - c) * wx
                            target[y * width + x] = UInt8((top + (bottom - top) * wy).rounded())
                        }
                    }
                }
            }
        }
        return output
    }
}
