import Foundation
import GazeCapture
import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import GazeVision

@Suite("A video whose container says it is rotated comes out upright")
struct RotatedVideoTests {
    static let clip = "video/cap13_blinks_20s.mp4"
    static let frameCount = 50

    /// Phone footage made from the clip: its first frames stored turned a quarter turn clockwise
    /// (losslessly, so the luma is the clip's own), then the stream tagged `rotate=90` without
    /// re-encoding, which FFmpeg writes as a display matrix of 90° counter-clockwise (what
    /// `ffprobe` calls rotation 90, and what FFmpeg's player turns the frames by to show them).
    func sidewaysCopy(in folder: TemporaryFolder) throws -> String {
        let stored = folder.path("stored.mp4"), copy = folder.path("sideways.mp4")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", [
            "-v", "error", "-i", Fixtures.path(Self.clip), "-frames:v", "\(Self.frameCount)", "-vf", "transpose=clock",
            "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", "-an", stored,
        ])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        let tagged = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", stored, "-c", "copy",
                                                               "-metadata:s:v:0", "rotate=90", copy])
        try #require(tagged.status == 0, "ffmpeg: \(tagged.stderr)")
        return copy
    }

    func frames(_ path: String) throws -> (source: VideoFileSource, frames: [Frame]) {
        let source = try VideoFileSource(path: path)
        var frames: [Frame] = []
        while frames.count < Self.frameCount, let frame = try source.nextFrame() { frames.append(frame) }
        return (source, frames)
    }

    @Test("the decoder reads the display matrix and turns every frame back: the clip's own pixels and times",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func decoderTurnsFrames() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (original, upright) = try frames(Fixtures.path(Self.clip))
        let (sideways, turned) = try frames(try sidewaysCopy(in: folder))
        #expect(original.rotationDegrees == 0)
        #expect(sideways.rotationDegrees == 270)
        #expect(sideways.width == original.width && sideways.height == original.height)
        #expect(turned.count == Self.frameCount && upright.count == Self.frameCount)
        for (a, b) in zip(upright, turned) {
            #expect(a.image == b.image, "frame \(a.index)")
            #expect(abs(a.timestampSeconds - b.timestampSeconds) < 1e-6)
        }
    }

    @Test("tracking and landmarks of the rotated copy match the upright clip's",
          .enabled(if: VisionFixtures.available, VisionFixtures.missingReason))
    func trackingMatches() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        func features(_ path: String) throws -> [FrameFeatures] {
            let (source, frames) = try frames(path)
            let pipeline = try FramePipeline(model: VisionFixtures.model(), width: source.width, height: source.height)
            return try frames.map { try pipeline.process($0).0 }
        }
        let upright = try features(Fixtures.path(Self.clip))
        let turned = try features(try sidewaysCopy(in: folder))
        #expect(upright.count == turned.count)
        #expect(turned.allSatisfy { $0.face != nil })
        for (a, b) in zip(upright, turned) {
            #expect(a.trackingState == b.trackingState, "frame \(a.frameIndex)")
            let distance = zip(a.face?.landmarks.points ?? [], b.face?.landmarks.points ?? []).map { $0.distance(to: $1) }.max() ?? .infinity
            #expect(distance < 1e-9, "frame \(a.frameIndex): landmarks differ by \(distance) px")
        }
    }
}
