import CZlib

/// An 8-bit RGBA image written as PNG, its image data deflated by zlib (level 9; equal pixels give
/// equal bytes).
public struct PNGEncoder: Sendable {
    public let width: Int
    public let height: Int
    /// Row-major RGBA bytes, `width * height * 4`.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 4, "RGBA pixels of the image's size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The PNG file's bytes.
    public var bytes: [UInt8] {
        var header: [UInt8] = []
        Self.append32(UInt32(width), to: &header)
        Self.append32(UInt32(height), to: &header)
        header += [8, 6, 0, 0, 0]  // 8 bits, RGBA, deflate, adaptive filtering, no interlace
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        Self.chunk("IHDR", header, into: &out)
        Self.chunk("IDAT", Self.deflated(filteredRows()), into: &out)
        Self.chunk("IEND", [], into: &out)
        return out
    }

    /// Each row preceded by its filter byte (0: none).
    private func filteredRows() -> [UInt8] {
        var rows: [UInt8] = []
        rows.reserveCapacity(height * (width * 4 + 1))
        for row in 0..<height {
            rows.append(0)
            rows += pixels[(row * width * 4)..<((row + 1) * width * 4)]
        }
        return rows
    }

    /// `data` as one zlib stream (RFC 1950), as PNG's image data is stored.
    static func deflated(_ data: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(data.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = data.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                compress2(output.baseAddress, &length, input.baseAddress, uLong(input.count), Z_BEST_COMPRESSION)
            }
        }
        // compressBound is enough room for any input, and the level is valid: nothing else fails.
        precondition(status == Z_OK, "zlib compress2 failed (\(status))")
        return Array(out.prefix(Int(length)))
    }

    static func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func chunk(_ type: String, _ data: [UInt8], into out: inout [UInt8]) {
        append32(UInt32(data.count), to: &out)
        let typed = Array(type.utf8) + data
        out += typed
        append32(crc32(typed), to: &out)
    }

    static let crcTable: [UInt32] = (0..<256).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// The CRC-32 of PNG chunks (ISO 3309).
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
