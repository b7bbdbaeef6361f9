/// The light on a face and around it, sampled from a gray picture: cheap beside the landmark fit
/// (about 1,800 pixel reads), for the seating check.
public struct FaceLight: Sendable, Equatable {
    /// The face box's mean luma over 255 (0 black … 1 white).
    public var face: Double
    /// The standard deviation of that luma (0 … 0.5).
    public var contrast: Double
    /// The mean luma around the box, over 255 (the box's own mean when the box fills the picture).
    public var background: Double

    /// Samples a grid of about 32 × 32 points in `box` (pixels, x and y from the picture's top
    /// left) and 32 × 24 over the picture, of which those outside the box make the background.
    public init(in image: GrayImage, box: (minX: Double, minY: Double, maxX: Double, maxY: Double)) {
        let x0 = max(0, Int(box.minX)), x1 = min(image.width - 1, Int(box.maxX))
        let y0 = max(0, Int(box.minY)), y1 = min(image.height - 1, Int(box.maxY))
        var sum = 0, squares = 0, count = 0
        if x1 > x0, y1 > y0 {
            let stepX = max(1, (x1 - x0) / 32), stepY = max(1, (y1 - y0) / 32)
            for y in stride(from: y0, through: y1, by: stepY) {
                for x in stride(from: x0, through: x1, by: stepX) {
                    let value = Int(image.pixels[y * image.width + x])
                    sum += value
                    squares += value * value
                    count += 1
                }
            }
        }
        let mean = count > 0 ? Double(sum) / Double(count) / 255 : 0
        let meanSquare = count > 0 ? Double(squares) / Double(count) / (255 * 255) : 0
        face = mean
        contrast = max(0, meanSquare - mean * mean).squareRoot()
        var outside = 0, outsideCount = 0
        let stepX = max(1, image.width / 32), stepY = max(1, image.height / 24)
        for y in stride(from: stepY / 2, to: image.height, by: stepY) {
            let rowInside = y >= y0 && y <= y1
            for x in stride(from: stepX / 2, to: image.width, by: stepX) where !(rowInside && x >= x0 && x <= x1) {
                outside += Int(image.pixels[y * image.width + x])
                outsideCount += 1
            }
        }
        background = outsideCount > 0 ? Double(outside) / Double(outsideCount) / 255 : mean
    }

    /// The share of `pixels` at `level` or brighter (0 for none).
    public static func saturatedShare(_ pixels: [UInt8], from level: UInt8) -> Double {
        guard !pixels.isEmpty else { return 0 }
        var count = 0
        for pixel in pixels where pixel >= level { count += 1 }
        return Double(count) / Double(pixels.count)
    }
}
