import Foundation
import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import GazeCapture

/// A camera mounted sideways: the frames turned upright by the request's rotation (issue "Trust", item 7).
@Suite("Frames turned by a quarter turn on request")
struct RotatedFrameSourceTests {
    static let clip = "video/cap13_blinks_20s.mp4"

    /// The first `count` frames a source gives.
    func frames(_ source: FrameSource, _ count: Int = 20) throws -> [Frame] {
        var all: [Frame] = []
        while all.count < count, let frame = try source.nextFrame() { all.append(frame) }
        return all
    }

    @Test("a sideways recording (no rotation metadata, as a camera on its side gives) turned 90° clockwise is the upright clip, pixel for pixel (7)",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func sidewaysTurnedUpright() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let sideways = folder.path("sideways.mp4")
        // Turned a quarter turn counter-clockwise, losslessly (the luma is the clip's own), with nothing in the container to say so.
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", Fixtures.path(Self.clip), "-frames:v", "20",
                                                             "-vf", "transpose=cclock", "-c:v", "libx264", "-qp", "0",
                                                             "-pix_fmt", "yuv420p", "-an", sideways])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        let upright = try frames(try VideoFileSource(path: Fixtures.path(Self.clip)))

        let opened = try FrameSourceRequest.file(path: sideways, asFastAsPossible: true, rotation: .clockwise90).open()
        let turned = try frames(opened.start(readAhead: nil))
        let plain = try FrameSourceRequest.file(path: sideways, asFastAsPossible: true).open()

        #expect(plain.source.width == upright[0].height && plain.source.height == upright[0].width)
        #expect(opened.source.width == upright[0].width && opened.source.height == upright[0].height)
        #expect(turned.count == 20)
        #expect(turned.map(\.image) == upright.map(\.image))
        #expect(turned.map(\.timestampSeconds) == upright.map(\.timestampSeconds))
    }

    @Test("a rotation comes after the mirror, and every quarter turn has its size", .enabled(if: Fixtures.available, Fixtures.missingReason))
    func orderAndSizes() throws {
        let path = Fixtures.path(Self.clip)
        let decoded = try frames(try VideoFileSource(path: path), 3)
        for rotation in FrameRotation.allCases {
            let opened = try FrameSourceRequest.file(path: path, asFastAsPossible: true, mirror: true, rotation: rotation).open()
            let read = try frames(opened.start(readAhead: nil), 3)
            #expect(read.map(\.image) == decoded.map { $0.image.mirrored().turnedClockwise(quarterTurns: rotation.quarterTurns) })
            #expect(opened.source.width == read[0].width && opened.source.height == read[0].height)
        }
    }
}
