import Foundation
import GazeCapture
import Testing
import TestSupport

@Suite("Colour video reading and writing", .serialized)
struct ColourVideoTests {
    static let ready = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")

    /// A frame whose every byte depends on its index, position and plane.
    static func frame(_ index: Int, layout: YUV420Layout) -> [UInt8] {
        (0..<layout.byteCount).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index &* 31 &+ $0 / 97) }
    }

    @Test func ffv1GivesBackTheVeryBytesWrittenAtTheirTimesWithTheirColour() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // An odd size: the chroma planes round up.
        let layout = YUV420Layout(width: 33, height: 17)
        let colour = VideoColour(matrix: VideoColour.bt709Matrix, primaries: 1, transfer: 1, range: 1)
        let path = folder.path("frames.mkv")
        let writer = try ColourVideoWriter(path: path, container: "matroska", codec: .ffv1, layout: layout, rateNumerator: 25,
                                           rateDenominator: 1, colour: colour)
        for index in 0..<5 { try writer.write(Self.frame(index, layout: layout), microseconds: Int64(index) * 40_000) }
        try writer.finish()
        let reader = try ColourVideoReader(path: path)
        #expect(reader.layout == layout && reader.rateNumerator == 25 && reader.rateDenominator == 1 && reader.colour == colour)
        var bytes: [UInt8] = []
        for index in 0..<5 {
            let time = try #require(try reader.read(into: &bytes))
            #expect(abs(time - Double(index) * 0.04) < 1e-9 && bytes == Self.frame(index, layout: layout))
        }
        #expect(try reader.read(into: &bytes) == nil)
    }

    @Test(.enabled(if: ready, "needs /usr/bin/ffmpeg"))
    func anRGBImageIsConvertedWithBT601InLimitedRange() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let image = folder.path("red.png")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=red:s=16x8", "-frames:v", "1",
                                                             "-pix_fmt", "rgb24", image])
        try #require(made.status == 0, "\(made.stderr)")
        let reader = try ColourVideoReader(path: image)
        #expect(reader.colour.matrix == VideoColour.bt601Matrix && !reader.colour.isFullRange)
        var bytes: [UInt8] = []
        _ = try #require(try reader.read(into: &bytes))
        // Pure red: Y 81, Cb 90, Cr 240 (BT.601, limited range), within swscale's rounding.
        #expect(abs(Int(bytes[0]) - 81) <= 1 && abs(Int(bytes[128]) - 90) <= 1 && abs(Int(bytes[128 + 32]) - 240) <= 1,
                "\(bytes[0]) \(bytes[128]) \(bytes[160])")
    }

    @Test func h264RefusesAnOddSizeAndNamesIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("odd.mp4")
        #expect(throws: CaptureError.cannotWriteVideo(path: path, reason: "H.264 needs an even width and height (this video is 33x17)")) {
            try ColourVideoWriter(path: path, container: "mp4", codec: .h264, layout: YUV420Layout(width: 33, height: 17),
                                  rateNumerator: 30, rateDenominator: 1,
                                  colour: VideoColour(matrix: 6, primaries: 2, transfer: 2, range: 1))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
