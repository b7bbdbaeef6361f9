import GazeModel

/// Paints a heat grid onto a frame: each pixel's heat, as a share of `OverlayStyle.heatmapFullShare`,
/// picks a colour along blue → green → yellow → red and an opacity up to `heatmapOpacity`
/// (transparent below 2 % of full heat), each pixel's luma kept at least
/// `OverlayStyle.heatmapMinimumContrast` (rising to twice that at full heat) from the picture's.
struct HeatPainter {
    /// Per level 0…255 of heat: the opacity in 256ths, the colour's YCbCr and the least luma difference.
    private let alpha: [Int32], luma: [Int32], cb: [Int32], cr: [Int32], contrast: [Int32]
    /// The luma range of the video (16…235 limited, 0…255 full).
    private let lumaFloor: Int32, lumaCeiling: Int32
    private let fullShare: Double
    static let lowestLevel = 5

    init(style: OverlayStyle, conversion: YCbCrConversion) {
        fullShare = style.heatmapFullShare
        var alpha: [Int32] = [], luma: [Int32] = [], cb: [Int32] = [], cr: [Int32] = [], contrast: [Int32] = []
        for level in 0..<256 {
            let u = Double(level) / 255
            let colour = conversion.ycbcr(Self.ramp(u))
            alpha.append(Int32((style.heatmapOpacity * u * 256).rounded()))
            contrast.append(style.heatmapOpacity > 0 ? Int32((style.heatmapMinimumContrast * (1 + u)).rounded()) : 0)
            luma.append(Int32(colour.y))
            cb.append(Int32(colour.cb))
            cr.append(Int32(colour.cr))
        }
        (self.alpha, self.luma, self.cb, self.cr, self.contrast) = (alpha, luma, cb, cr, contrast)
        lumaFloor = Int32(conversion.ycbcr(RGBColour(0, 0, 0)).y)
        lumaCeiling = Int32(conversion.ycbcr(RGBColour(255, 255, 255)).y)
    }

    /// The blended luma, moved to at least `need` from `original`: towards the heat colour's side
    /// when the range allows, else away from it.
    @inline(__always)
    func contrasted(_ original: UInt8, _ blended: UInt8, colour: Int32, need: Int32) -> UInt8 {
        let base = Int32(original)
        guard abs(Int32(blended) - base) < need else { return blended }
        let toward: Int32 = colour >= base ? 1 : -1
        var value = base + toward * need
        if value < lumaFloor || value > lumaCeiling { value = base - toward * need }
        return UInt8(Swift.max(0, Swift.min(255, value)))
    }

    /// Blue (0) → green (⅓) → yellow (⅔) → red (1), linearly between.
    static func ramp(_ u: Double) -> RGBColour {
        let stops = [RGBColour(0, 64, 255), RGBColour(0, 200, 60), RGBColour(255, 230, 0), RGBColour(230, 0, 0)]
        let position = Swift.max(0, Swift.min(1, u)) * 3, index = Swift.min(2, Int(position)), f = position - Double(index)
        let a = stops[index], b = stops[index + 1]
        return RGBColour(a.red + (b.red - a.red) * f, a.green + (b.green - a.green) * f, a.blue + (b.blue - a.blue) * f)
    }

    func paint(_ grid: HeatGrid, on frame: inout PlanarFrame) {
        let threshold = Double(Self.lowestLevel) / 255 * fullShare
        let cell = grid.cellPixels
        for blockRow in 0..<(grid.rows - 1) where blockRow * cell < frame.height {
            for blockColumn in 0..<(grid.columns - 1) where blockColumn * cell < frame.width {
                let base = blockRow * grid.columns + blockColumn
                let corners = (grid.values[base], grid.values[base + 1], grid.values[base + grid.columns],
                               grid.values[base + grid.columns + 1])
                guard Swift.max(corners.0, corners.1, corners.2, corners.3) >= threshold else { continue }
                paintBlock(corners, x: blockColumn * cell, y: blockRow * cell, cell: cell, on: &frame)
            }
        }
    }

    /// One cell's pixels, their heat interpolated between its four corners.
    private func paintBlock(_ corners: (Double, Double, Double, Double), x left: Int, y top: Int, cell: Int,
                            on frame: inout PlanarFrame) {
        let right = Swift.min(left + cell, frame.width), bottom = Swift.min(top + cell, frame.height)
        let toLevel = 255 / fullShare, size = Double(cell)
        let width = frame.width, chromaWidth = frame.chromaWidth, cbOffset = frame.cbOffset, crOffset = frame.crOffset
        frame.bytes.withUnsafeMutableBufferPointer { bytes in
            for y in top..<bottom {
                let fy = Double(y - top) / size
                let start = corners.0 + (corners.2 - corners.0) * fy, end = corners.1 + (corners.3 - corners.1) * fy
                let step = (end - start) / size
                var value = start
                for x in left..<right {
                    let level = Int(Swift.min(255, value * toLevel))
                    value += step
                    guard level >= Self.lowestLevel else { continue }
                    let a = alpha[level], original = bytes[y * width + x]
                    bytes[y * width + x] = contrasted(original, Self.blend(original, luma[level], a), colour: luma[level],
                                                      need: contrast[level])
                    if x & 1 == 0 && y & 1 == 0 {
                        let chroma = (y >> 1) * chromaWidth + (x >> 1)
                        bytes[cbOffset + chroma] = Self.blend(bytes[cbOffset + chroma], cb[level], a)
                        bytes[crOffset + chroma] = Self.blend(bytes[crOffset + chroma], cr[level], a)
                    }
                }
            }
        }
    }

    @inline(__always)
    static func blend(_ value: UInt8, _ colour: Int32, _ alpha: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: (Int32(value) * (256 - alpha) + colour * alpha + 128) >> 8)
    }
}

extension PlanarFrame {
    /// Blends `colour` over a filled disc (edges anti-aliased over one pixel).
    mutating func disc(centre: Point2, radius: Double, colour: (y: UInt8, cb: UInt8, cr: UInt8), opacity: Double) {
        paint(centre: centre, reach: radius + 1, colour: colour, opacity: opacity) { distance in radius + 0.5 - distance }
    }

    /// Blends `colour` over a ring of `width` pixels centred on the circle of `radius`.
    mutating func ring(centre: Point2, radius: Double, width: Double, colour: (y: UInt8, cb: UInt8, cr: UInt8), opacity: Double) {
        paint(centre: centre, reach: radius + width / 2 + 1, colour: colour, opacity: opacity) { distance in
            width / 2 + 0.5 - abs(distance - radius)
        }
    }

    /// Blends `colour` over the pixels within `reach` of `centre`, each by `opacity` × its
    /// coverage (clamped to 0…1) at its centre's distance; a chroma sample by its 2×2 block's centre.
    private mutating func paint(centre: Point2, reach: Double, colour: (y: UInt8, cb: UInt8, cr: UInt8), opacity: Double,
                                coverage: (Double) -> Double) {
        func alpha(_ x: Double, _ y: Double) -> Int32 {
            let distance = ((x - centre.x) * (x - centre.x) + (y - centre.y) * (y - centre.y)).squareRoot()
            return Int32((opacity * Swift.max(0, Swift.min(1, coverage(distance))) * 256).rounded())
        }
        let left = Swift.max(0, Int(centre.x - reach)), right = Swift.min(width - 1, Int(centre.x + reach))
        let top = Swift.max(0, Int(centre.y - reach)), bottom = Swift.min(height - 1, Int(centre.y + reach))
        guard left <= right, top <= bottom else { return }
        for y in top...bottom {
            for x in left...right {
                let a = alpha(Double(x) + 0.5, Double(y) + 0.5)
                if a > 0 { bytes[y * width + x] = HeatPainter.blend(bytes[y * width + x], Int32(colour.y), a) }
            }
        }
        for y in (top / 2)...(bottom / 2) {
            for x in (left / 2)...(right / 2) {
                let a = alpha(Double(2 * x) + 1, Double(2 * y) + 1)
                guard a > 0 else { continue }
                let chroma = y * chromaWidth + x
                bytes[cbOffset + chroma] = HeatPainter.blend(bytes[cbOffset + chroma], Int32(colour.cb), a)
                bytes[crOffset + chroma] = HeatPainter.blend(bytes[crOffset + chroma], Int32(colour.cr), a)
            }
        }
    }
}
