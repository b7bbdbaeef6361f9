import Foundation

/// An SVG figure rendered to PNG by librsvg's `rsvg-convert` (Debian's librsvg2-bin), the
/// renderer the tests check the figures with.
public enum SVGRasterizer {
    /// Why a figure could not be rendered.
    public enum Failure: Error, CustomStringConvertible, Equatable {
        /// `rsvg-convert` is not on the PATH.
        case rendererMissing
        /// `rsvg-convert` ran and failed.
        case renderFailed(path: String, reason: String)

        public var description: String {
            switch self {
            case .rendererMissing:
                return "cannot render PNG: rsvg-convert is not installed (apt-get install librsvg2-bin)."
            case let .renderFailed(path, reason):
                return "cannot render \(path) as PNG: \(reason)"
            }
        }
    }

    /// The first `rsvg-convert` on the PATH.
    public static var renderer: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/rsvg-convert" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The PNG bytes of `svg`, rendered at its own size (one picture pixel per PNG pixel).
    public static func png(_ svg: String) throws -> Data {
        guard let renderer else { throw Failure.rendererMissing }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: renderer)
        process.arguments = ["-f", "png"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let writer = Thread { input.fileHandleForWriting.write(Data(svg.utf8)); try? input.fileHandleForWriting.close() }
        writer.start()
        let png = output.fileHandleForReading.readDataToEndOfFile()
        let reason = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, png.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            throw Failure.renderFailed(path: "the figure", reason: reason.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return png
    }
}
