/// A perceptually uniform colour map for densities: viridis (dark blue → green → yellow), whose
/// lightness rises evenly and which reads the same to the common colour-vision deficiencies and in
/// greyscale print. Its stops are viridis's own values at ninths of the range.
public enum ColourMap {
    static let viridis: [(Double, Double, Double)] = [
        (68, 1, 84), (72, 40, 120), (62, 74, 137), (49, 104, 142), (38, 130, 142),
        (31, 158, 137), (53, 183, 121), (109, 205, 89), (180, 222, 44), (253, 231, 37),
    ]

    /// The colour at `level` (0…1, clamped) as 8-bit red, green, blue.
    public static func rgb(_ level: Double) -> (UInt8, UInt8, UInt8) {
        let position = Swift.max(0, Swift.min(1, level.isNaN ? 0 : level)) * Double(viridis.count - 1)
        let index = Swift.min(Int(position), viridis.count - 2)
        let t = position - Double(index)
        let (a, b) = (viridis[index], viridis[index + 1])
        func channel(_ x: Double, _ y: Double) -> UInt8 { UInt8((x + (y - x) * t).rounded()) }
        return (channel(a.0, b.0), channel(a.1, b.1), channel(a.2, b.2))
    }

    /// The colour at `level` as `#rrggbb`.
    public static func hex(_ level: Double) -> String {
        let (r, g, b) = rgb(level)
        return "#" + [r, g, b].map { value in
            let digits = String(value, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }
}
