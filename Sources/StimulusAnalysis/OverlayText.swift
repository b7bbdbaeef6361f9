import GazeModel

/// A 5×7-pixel bitmap font for the overlay's legend, time readout and area names: digits, capital
/// letters (small ones are drawn as capitals, except `s`), and `- . : / _ = ` and space.
enum OverlayFont {
    static let glyphWidth = 5, glyphHeight = 7
    /// Each glyph's rows, top first; bit 4 is the leftmost pixel.
    static let glyphs: [Character: [UInt8]] = {
        let table: [(Character, String)] = [
            ("0", "01110 10001 10011 10101 11001 10001 01110"), ("1", "00100 01100 00100 00100 00100 00100 01110"),
            ("2", "01110 10001 00001 00010 00100 01000 11111"), ("3", "11111 00010 00100 00010 00001 10001 01110"),
            ("4", "00010 00110 01010 10010 11111 00010 00010"), ("5", "11111 10000 11110 00001 00001 10001 01110"),
            ("6", "00110 01000 10000 11110 10001 10001 01110"), ("7", "11111 00001 00010 00100 01000 01000 01000"),
            ("8", "01110 10001 10001 01110 10001 10001 01110"), ("9", "01110 10001 10001 01111 00001 00010 01100"),
            ("A", "01110 10001 10001 11111 10001 10001 10001"), ("B", "11110 10001 10001 11110 10001 10001 11110"),
            ("C", "01110 10001 10000 10000 10000 10001 01110"), ("D", "11100 10010 10001 10001 10001 10010 11100"),
            ("E", "11111 10000 10000 11110 10000 10000 11111"), ("F", "11111 10000 10000 11110 10000 10000 10000"),
            ("G", "01110 10001 10000 10111 10001 10001 01111"), ("H", "10001 10001 10001 11111 10001 10001 10001"),
            ("I", "01110 00100 00100 00100 00100 00100 01110"), ("J", "00111 00010 00010 00010 00010 10010 01100"),
            ("K", "10001 10010 10100 11000 10100 10010 10001"), ("L", "10000 10000 10000 10000 10000 10000 11111"),
            ("M", "10001 11011 10101 10101 10001 10001 10001"), ("N", "10001 10001 11001 10101 10011 10001 10001"),
            ("O", "01110 10001 10001 10001 10001 10001 01110"), ("P", "11110 10001 10001 11110 10000 10000 10000"),
            ("Q", "01110 10001 10001 10001 10101 10010 01101"), ("R", "11110 10001 10001 11110 10100 10010 10001"),
            ("S", "01111 10000 10000 01110 00001 00001 11110"), ("T", "11111 00100 00100 00100 00100 00100 00100"),
            ("U", "10001 10001 10001 10001 10001 10001 01110"), ("V", "10001 10001 10001 10001 10001 01010 00100"),
            ("W", "10001 10001 10001 10101 10101 10101 01010"), ("X", "10001 10001 01010 00100 01010 10001 10001"),
            ("Y", "10001 10001 10001 01010 00100 00100 00100"), ("Z", "11111 00001 00010 00100 01000 10000 11111"),
            ("-", "00000 00000 00000 11111 00000 00000 00000"), (".", "00000 00000 00000 00000 00000 01100 01100"),
            (":", "00000 01100 01100 00000 01100 01100 00000"), ("/", "00001 00010 00010 00100 01000 01000 10000"),
            ("_", "00000 00000 00000 00000 00000 00000 11111"), ("=", "00000 00000 11111 00000 11111 00000 00000"),
            ("s", "00000 00000 01111 10000 01110 00001 11110"), (" ", "00000 00000 00000 00000 00000 00000 00000"),
        ]
        var glyphs: [Character: [UInt8]] = [:]
        for (character, rows) in table { glyphs[character] = rows.split(separator: " ").map { UInt8($0, radix: 2)! } }
        return glyphs
    }()

    /// The glyph drawn for `character` (a small letter as its capital, an unknown character as `_`).
    static func glyph(_ character: Character) -> [UInt8] {
        glyphs[character] ?? glyphs[Character(character.uppercased())] ?? glyphs["_"]!
    }

    /// The width of `text` in pixels at `scale` (one column of space after each glyph).
    static func width(_ text: String, scale: Int) -> Int { text.count * (glyphWidth + 1) * scale }
}

extension PlanarFrame {
    /// Blends `colour` over the rectangle (clipped to the frame); a chroma sample by its 2×2 block's top-left pixel.
    mutating func fill(x left: Int, y top: Int, width w: Int, height h: Int, colour: (y: UInt8, cb: UInt8, cr: UInt8), opacity: Double) {
        let x0 = Swift.max(0, left), x1 = Swift.min(width, left + w), y0 = Swift.max(0, top), y1 = Swift.min(height, top + h)
        guard x0 < x1, y0 < y1 else { return }
        let a = Int32((opacity * 256).rounded())
        for y in y0..<y1 {
            for x in x0..<x1 {
                bytes[y * width + x] = HeatPainter.blend(bytes[y * width + x], Int32(colour.y), a)
                guard x & 1 == 0 && y & 1 == 0 else { continue }
                let chroma = (y >> 1) * chromaWidth + (x >> 1)
                bytes[cbOffset + chroma] = HeatPainter.blend(bytes[cbOffset + chroma], Int32(colour.cb), a)
                bytes[crOffset + chroma] = HeatPainter.blend(bytes[crOffset + chroma], Int32(colour.cr), a)
            }
        }
    }

    /// Draws `text` with its top-left at (x, y), each font pixel a `scale`-sided square of `colour`.
    mutating func text(_ text: String, x: Int, y: Int, scale: Int, colour: (y: UInt8, cb: UInt8, cr: UInt8)) {
        for (index, character) in text.enumerated() {
            let left = x + index * (OverlayFont.glyphWidth + 1) * scale
            for (row, bits) in OverlayFont.glyph(character).enumerated() {
                for column in 0..<OverlayFont.glyphWidth where bits & (1 << (OverlayFont.glyphWidth - 1 - column)) != 0 {
                    fill(x: left + column * scale, y: y + row * scale, width: scale, height: scale, colour: colour, opacity: 1)
                }
            }
        }
    }

    /// A line from `a` to `b` of `width` pixels (discs along it, a pixel apart).
    mutating func line(from a: Point2, to b: Point2, width: Double, colour: (y: UInt8, cb: UInt8, cr: UInt8)) {
        let length = a.distance(to: b), steps = Swift.max(1, Int(length.rounded(.up)))
        for step in 0...steps {
            let f = Double(step) / Double(steps)
            let x = a.x + (b.x - a.x) * f, y = a.y + (b.y - a.y) * f
            disc(centre: Point2(x, y), radius: width / 2, colour: colour, opacity: 1)
        }
    }
}
