/// A colour frame as planar 4:2:0 YCbCr bytes (I420), rows packed: the luma plane (width ×
/// height), then Cb, then Cr (each half the size, rounded up). The overlay draws on it and the
/// highlight clips are cut from it; the video reader and writer take its bytes as they are.
public struct PlanarFrame: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var bytes: [UInt8]

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }
    /// Where the Cb and the Cr plane start in `bytes`.
    public var cbOffset: Int { width * height }
    public var crOffset: Int { width * height + chromaWidth * chromaHeight }

    /// A frame of one colour (black in limited range by default).
    public init(width: Int, height: Int, y: UInt8 = 16, cb: UInt8 = 128, cr: UInt8 = 128) {
        self.width = width
        self.height = height
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        bytes = [UInt8](repeating: y, count: width * height) + [UInt8](repeating: cb, count: chroma)
            + [UInt8](repeating: cr, count: chroma)
    }

    /// The luma, Cb and Cr at pixel (x, y) (the chroma of the 2×2 block holding it).
    public func sample(x: Int, y: Int) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        let chroma = (y / 2) * chromaWidth + x / 2
        return (bytes[y * width + x], bytes[cbOffset + chroma], bytes[crOffset + chroma])
    }

    /// The frame's part at (x, y) of `width` × `height` pixels (inside the frame). At an odd
    /// offset each output chroma value is the mean of the two (or four) source values its 2×2
    /// block straddles, so colour stays aligned with luma.
    public func cropped(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) -> PlanarFrame {
        precondition(x >= 0 && y >= 0 && cropWidth > 0 && cropHeight > 0 && x + cropWidth <= width && y + cropHeight <= height,
                     "crop outside the frame")
        var result = PlanarFrame(width: cropWidth, height: cropHeight)
        let size = (width: result.chromaWidth, height: result.chromaHeight)
        let planes = [(cbOffset, result.cbOffset), (crOffset, result.crOffset)]
        bytes.withUnsafeBufferPointer { source in
            result.bytes.withUnsafeMutableBufferPointer { target in
                for row in 0..<cropHeight {
                    let from = (y + row) * width + x, to = row * cropWidth
                    for column in 0..<cropWidth { target[to + column] = source[from + column] }
                }
                for (sourcePlane, targetPlane) in planes {
                    cropChroma(source, plane: sourcePlane, into: target, plane: targetPlane, x: x, y: y, size: size)
                }
            }
        }
        return result
    }

    private func cropChroma(_ source: UnsafeBufferPointer<UInt8>, plane: Int, into target: UnsafeMutableBufferPointer<UInt8>,
                            plane targetPlane: Int, x: Int, y: Int, size: (width: Int, height: Int)) {
        let lastColumn = chromaWidth - 1, lastRow = chromaHeight - 1
        for row in 0..<size.height {
            let top = Swift.min(y / 2 + row, lastRow), bottom = y % 2 == 1 ? Swift.min(top + 1, lastRow) : top
            for column in 0..<size.width {
                let left = Swift.min(x / 2 + column, lastColumn), right = x % 2 == 1 ? Swift.min(left + 1, lastColumn) : left
                let sum = Int(source[plane + top * chromaWidth + left]) + Int(source[plane + top * chromaWidth + right])
                    + Int(source[plane + bottom * chromaWidth + left]) + Int(source[plane + bottom * chromaWidth + right])
                target[targetPlane + row * size.width + column] = UInt8((sum + 2) / 4)
            }
        }
    }
}

/// An RGB colour (0…255 each, sRGB as displayed).
public struct RGBColour: Sendable, Equatable {
    public var red: Double, green: Double, blue: Double

    public init(_ red: Double, _ green: Double, _ blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }
}

/// RGB to YCbCr by the matrix and range a video's frames are in.
public struct YCbCrConversion: Sendable, Equatable {
    public enum Matrix: Sendable, Equatable { case bt601, bt709 }

    public var matrix: Matrix
    /// Full range (0…255) rather than limited (luma 16…235, chroma 16…240).
    public var fullRange: Bool

    public init(matrix: Matrix, fullRange: Bool) {
        self.matrix = matrix
        self.fullRange = fullRange
    }

    /// The YCbCr bytes of `colour` (rounded, clamped to 0…255).
    public func ycbcr(_ colour: RGBColour) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        let (kr, kb) = matrix == .bt601 ? (0.299, 0.114) : (0.2126, 0.0722)
        let r = colour.red / 255, g = colour.green / 255, b = colour.blue / 255
        let luma = kr * r + (1 - kr - kb) * g + kb * b
        let cb = (b - luma) / (2 * (1 - kb)), cr = (r - luma) / (2 * (1 - kr))
        func byte(_ value: Double) -> UInt8 { UInt8(Swift.max(0, Swift.min(255, value.rounded()))) }
        if fullRange { return (byte(255 * luma), byte(128 + 255 * cb), byte(128 + 255 * cr)) }
        return (byte(16 + 219 * luma), byte(128 + 224 * cb), byte(128 + 224 * cr))
    }
}
