import GazeModel

/// An 8-bit gray image, rows packed (`pixels[y * width + x]`).
public struct GrayImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height, "pixel count must be width × height")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public subscript(x: Int, y: Int) -> UInt8 { pixels[y * width + x] }

    /// Bilinear sample at a sub-pixel position (clamped to the image).
    @inline(__always)
    public func sample(_ x: Double, _ y: Double) -> Double {
        let cx = Swift.min(Swift.max(x, 0), Double(width - 1))
        let cy = Swift.min(Swift.max(y, 0), Double(height - 1))
        let x0 = Int(cx), y0 = Int(cy)
        let x1 = Swift.min(x0 + 1, width - 1), y1 = Swift.min(y0 + 1, height - 1)
        let fx = cx - Double(x0), fy = cy - Double(y0)
        let top = Double(pixels[y0 * width + x0]) * (1 - fx) + Double(pixels[y0 * width + x1]) * fx
        let bottom = Double(pixels[y1 * width + x0]) * (1 - fx) + Double(pixels[y1 * width + x1]) * fx
        return top * (1 - fy) + bottom * fy
    }

    /// The image shrunk by an integer factor, each output pixel the mean of a factor × factor block.
    public func downscaled(by factor: Int) -> GrayImage {
        precondition(factor >= 1)
        if factor == 1 { return self }
        return downscaled(by: factor, x: 0, y: 0, width: width, height: height)
    }

    /// The part `width` × `height` pixels from (`x`, `y`) shrunk by `factor`: with `x` and `y`
    /// multiples of `factor`, exactly that part of `downscaled(by: factor)`, without shrinking the
    /// rest. The part must lie inside the image.
    public func downscaled(by factor: Int, x: Int, y: Int, width partWidth: Int, height partHeight: Int) -> GrayImage {
        precondition(factor >= 1 && x >= 0 && y >= 0 && partWidth >= factor && partHeight >= factor
                     && x + partWidth <= width && y + partHeight <= height, "the part must lie inside the image")
        let outWidth = partWidth / factor, outHeight = partHeight / factor
        var out = [UInt8](repeating: 0, count: outWidth * outHeight)
        let area = factor * factor
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for oy in 0..<outHeight {
                    for ox in 0..<outWidth {
                        var sum = 0
                        for dy in 0..<factor {
                            let row = (y + oy * factor + dy) * width + x + ox * factor
                            for dx in 0..<factor { sum += Int(source[row + dx]) }
                        }
                        target[oy * outWidth + ox] = UInt8(sum / area)
                    }
                }
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: out)
    }
}
