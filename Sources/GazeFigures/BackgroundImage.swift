import Foundation

/// A stimulus image stretched under a figure, embedded in its SVG as a data URL.
public enum BackgroundImage {
    /// The MIME type of an image an SVG viewer can show (PNG, JPEG, GIF, WebP), from its first
    /// bytes (not its name); nil for anything else.
    public static func mimeType(_ data: Data) -> String? {
        let head = [UInt8](data.prefix(12))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF8".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        return nil
    }

    /// The image as a data URL (`ScanPathPlot.backgroundHref`), nil when it is not one a viewer shows.
    public static func href(_ data: Data) -> String? {
        mimeType(data).map { "data:\($0);base64," + data.base64EncodedString() }
    }
}
