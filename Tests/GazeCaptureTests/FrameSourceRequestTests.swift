import Foundation
import GazeModel
import Testing
import TestSupport
@testable import GazeCapture

/// The one way frames are opened: a request (camera, file, saved video, given frames; mirror, pacing)
/// turned into an opened source whose reading starts when asked.
@Suite("Frame sources opened by request")
struct FrameSourceRequestTests {
    static let clip = "video/cap13_blinks_20s.mp4"

    /// Every frame a source gives, in order.
    func frames(_ source: FrameSource) throws -> [Frame] {
        var all: [Frame] = []
        while let frame = try source.nextFrame() { all.append(frame) }
        return all
    }

    @Test("a file: every frame as the decoder gives it, read ahead in order; mirrored, each turned back; the facts name the file",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func file() throws {
        let path = Fixtures.path(Self.clip)
        let decoded = try frames(try VideoFileSource(path: path))
        let plain = try FrameSourceRequest.file(path: path, asFastAsPossible: true).open()
        let read = try frames(plain.start(readAhead: 4))
        plain.stop()
        #expect(read.map(\.image.pixels) == decoded.map(\.image.pixels))
        #expect(read.map(\.timestampSeconds) == decoded.map(\.timestampSeconds))
        #expect(plain.kind == .file && plain.path == path && plain.isReplay && !plain.paced && plain.mirrored == nil)
        #expect(plain.requestedFramesPerSecond == 25 && plain.deviceModel == plain.video?.name && plain.camera == nil)

        let mirrored = try FrameSourceRequest.file(path: path, asFastAsPossible: true, mirror: true).open()
        let turned = try frames(mirrored.start(readAhead: nil))
        #expect(mirrored.mirrored == .option)
        #expect(turned.count == decoded.count)
        #expect(turned.map(\.image.pixels) == decoded.map { $0.image.mirrored().pixels })
        #expect(turned.first?.image.pixels != decoded.first?.image.pixels)
    }

    @Test("at its own pace a file's frames come at their presentation times from the start given",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func pacing() throws {
        let opened = try FrameSourceRequest.file(path: Fixtures.path(Self.clip), asFastAsPossible: false).open()
        #expect(opened.paced)
        let origin = SystemClock.monotonic()
        let source = opened.start(pacedFrom: origin, readAhead: nil)
        // Frame 10 of a 25 fps clip is due 0.4 s after the origin, not before.
        for _ in 0...10 { _ = try source.nextFrame() }
        #expect(SystemClock.monotonic() - origin >= 0.4 - 0.005)
        // Starting again gives the same reader, not a second one.
        #expect(opened.start() === source)
    }

    @Test("a saved video: frame i gets stored time i; more or fewer times than frames is a mismatch naming both counts",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func savedVideo() throws {
        let path = Fixtures.path(Self.clip)
        let times = (0..<500).map { 1_790_000_000 + Double($0) * 0.041 }
        let exact = try FrameSourceRequest(.savedVideo(path: path, timestamps: times)).open()
        let restamped = try frames(exact.start())
        exact.stop()
        #expect(restamped.map(\.timestampSeconds) == times && restamped.map(\.index) == Array(0..<500))
        #expect(exact.restamped?.mismatch == nil && !exact.isReplay && exact.kind == .file)

        let fewer = try FrameSourceRequest(.savedVideo(path: path, timestamps: Array(times.prefix(499)))).open()
        #expect(try frames(fewer.source).count == 499)
        #expect(fewer.restamped?.mismatch == RestampedFrameSource.Mismatch(videoFrames: 500, timestamps: 499))
        let more = try FrameSourceRequest(.savedVideo(path: path, timestamps: times + [1_790_000_100])).open()
        #expect(try frames(more.source).count == 500)
        #expect(more.restamped?.mismatch == RestampedFrameSource.Mismatch(videoFrames: 500, timestamps: 501))
    }

    @Test("camera or file: a file wins; a camera takes what is given and the camera's defaults for the rest")
    func cameraOrFile() {
        let file = FrameSourceRequest.cameraOrFile(file: "clip.mp4", device: nil, width: nil, height: nil, framesPerSecond: 60,
                                                   controls: [], pacing: .ownPace, mirror: true)
        guard case .file(let path) = file.input else { Issue.record("a file was not asked for"); return }
        #expect(path == "clip.mp4" && file.mirror && file.pacing == .ownPace)

        let defaults = FrameSourceRequest.cameraOrFile(file: nil, device: nil, width: nil, height: nil, framesPerSecond: nil,
                                                       controls: [], pacing: .ownPace, mirror: false)
        guard case .camera(let standard) = defaults.input else { Issue.record("no camera was asked for"); return }
        #expect(standard.path == "/dev/video0" && standard.width == 640 && standard.height == 480)
        #expect(standard.framesPerSecond == 30 && standard.controls.isEmpty)

        let given = FrameSourceRequest.cameraOrFile(file: nil, device: "/dev/video2", width: 1280, height: 720,
                                                    framesPerSecond: 60, controls: [.init(name: "exposure_auto", value: 1)],
                                                    pacing: .ownPace, mirror: true)
        guard case .camera(let camera) = given.input else { Issue.record("no camera was asked for"); return }
        #expect(camera.path == "/dev/video2" && camera.width == 1280 && camera.height == 720 && camera.framesPerSecond == 60)
        #expect(camera.controls == [.init(name: "exposure_auto", value: 1)] && given.mirror)
    }

    @Test("a camera that cannot be opened fails with the device's error, naming it")
    func missingCamera() throws {
        let request = FrameSourceRequest.camera(.init(path: "/dev/gazerec-no-such-camera"))
        #expect(throws: CaptureError.noSuchDevice(path: "/dev/gazerec-no-such-camera")) { _ = try request.open() }
    }
}
