import CV4L2
import Foundation
import GazeCore
import GazeModel
import Glibc
import Testing
import TestSupport
@testable import GazeCapture

@Suite("V4L2 camera logic against a simulated device")
struct V4L2CameraTests {
    /// Three recognisable 64×48 frames: a gradient shifted by the frame number.
    static let frames: [GrayImage] = (0..<3).map { (n: Int) -> GrayImage in
        let pixels: [UInt8] = (0..<(64 * 48)).map { (index: Int) -> UInt8 in UInt8((index % 64) * 3 + n * 20) }
        return GrayImage(width: 64, height: 48, pixels: pixels)
    }

    func camera(_ options: SimulatedV4L2Device.Options = .init(), width: Int = 640, height: Int = 480, fps: Int = 30)
        throws -> (V4L2Camera, SimulatedV4L2Device) {
        let device = SimulatedV4L2Device(options: options, frames: Self.frames)
        let camera = try V4L2Camera(configuration: .init(path: "/dev/video7", width: width, height: height,
                                                         framesPerSecond: fps, frameTimeoutSeconds: 0.5),
                                    system: device)
        return (camera, device)
    }

    @Test("negotiates YUYV at the requested size and reports the granted rate")
    func negotiation() throws {
        let (camera, device) = try camera(fps: 60)
        #expect(camera.name == "Simulated Camera")
        #expect(camera.pixelFormat == PixelFormat.yuyv)
        #expect(camera.width == 640 && camera.height == 480)
        #expect(camera.framesPerSecond == 30)  // asked 60, the driver grants at most 30
        #expect(device.streaming)
    }

    @Test("a size the driver lacks snaps to the nearest it has; MJPEG-only devices are accepted")
    func nearestSizeAndMJPEG() throws {
        var options = SimulatedV4L2Device.Options()
        options.formats = [PixelFormat.mjpeg]
        let (camera, _) = try camera(options, width: 1200, height: 700)
        #expect(camera.width == 1280 && camera.height == 720)
        #expect(camera.pixelFormat == PixelFormat.mjpeg)
    }

    @Test("frames cycle through the buffers in order, converted to gray, stamped in Unix time")
    func streaming() throws {
        var options = SimulatedV4L2Device.Options()
        options.eagainEvery = 4
        let (camera, device) = try camera(options, width: 64, height: 48)
        #expect(camera.width == 320)  // nearest offered size
        var previous: Double?
        for index in 0..<10 {
            let frame = try #require(try camera.nextFrame())
            #expect(frame.index == index)
            // Gray comes back exactly (YUYV's Y bytes), frame by frame.
            let source = Self.frames[index % 3]
            #expect(frame.image[10, 5] == source[10 * 64 / 320, 5 * 48 / 240])
            // Monotonic driver time + the clock offset = Unix time.
            #expect(frame.timestampSeconds > device.realtimeOffset)
            if let previous { #expect(abs(frame.timestampSeconds - previous - 1.0 / 30) < 1e-5) }
            previous = frame.timestampSeconds
        }
        #expect(camera.droppedFrames == 0)
    }

    @Test("gaps in the driver's sequence numbers are counted as dropped frames")
    func drops() throws {
        var options = SimulatedV4L2Device.Options()
        options.sequenceGap = 2
        let (camera, _) = try camera(options)
        for _ in 0..<5 { _ = try camera.nextFrame() }
        #expect(camera.droppedFrames == 8)
    }

    @Test("open errors map to clear messages", arguments: [(ENOENT, "no such device"), (EBUSY, "busy"),
                                                           (EACCES, "permission denied")])
    func openErrors(code: Int32, text: String) throws {
        var options = SimulatedV4L2Device.Options()
        options.openError = code
        #expect {
            _ = try camera(options)
        } throws: { error in
            "\(error)".contains("/dev/video7") && "\(error)".contains(text)
        }
    }

    @Test("a device without YUYV or MJPEG, or not for capture, is refused and released")
    func unsupported() throws {
        var options = SimulatedV4L2Device.Options()
        options.formats = [GZ_PIX_FMT_YUV420]
        let device = SimulatedV4L2Device(options: options, frames: Self.frames)
        #expect {
            _ = try V4L2Camera(configuration: .init(path: "/dev/video7"), system: device)
        } throws: { error in
            "\(error)".contains("offers YU12; gazerec reads YUYV or MJPEG")
        }
        #expect(device.openDescriptors == 0)
        var output = SimulatedV4L2Device.Options()
        output.capabilities = UInt32(V4L2_CAP_VIDEO_OUTPUT)
        #expect(throws: CaptureError.notACaptureDevice(path: "/dev/video7")) { _ = try camera(output) }
    }

    @Test("a device that vanishes mid-stream is reported as lost after the frames it gave")
    func deviceLost() throws {
        var options = SimulatedV4L2Device.Options()
        options.framesBeforeLoss = 3
        let (camera, device) = try camera(options)
        for _ in 0..<3 { #expect(try camera.nextFrame() != nil) }
        #expect {
            _ = try camera.nextFrame()
        } throws: { error in
            guard case CaptureError.deviceLost(let path, let reason) = error else { return false }
            return path == "/dev/video7" && reason == "no such device"
        }
        camera.close()
        #expect(device.openDescriptors == 0)
        #expect(device.unmapped == 4)
    }

    @Test("a rate the driver cannot set is not an error; the rate is then unknown")
    func noFrameRateControl() throws {
        var options = SimulatedV4L2Device.Options()
        options.maximumFramesPerSecond = nil
        let (camera, _) = try camera(options)
        #expect(camera.framesPerSecond == 0)
    }

    @Test("the catalogue lists a device's formats, sizes and rates")
    func catalogue() throws {
        let device = SimulatedV4L2Device(frames: Self.frames)
        let description = try CameraCatalog.describe(path: "/dev/video7", system: device)
        #expect(description.card == "Simulated Camera")
        #expect(description.formats.map(\.name) == ["YUYV", "MJPG"])
        #expect(description.formats[0].sizes.map { "\($0.width)x\($0.height)" } == ["640x480", "320x240", "1280x720"])
        #expect(description.formats[0].sizes[0].framesPerSecond == [30, 15])
        #expect(device.openDescriptors == 0)
    }
}

@Suite("Camera controls against a simulated device")
struct CameraControlTests {
    func camera(_ controls: [CameraControlSetting], options: SimulatedV4L2Device.Options = .init()) throws
        -> (V4L2Camera, SimulatedV4L2Device) {
        let device = SimulatedV4L2Device(options: options, frames: V4L2CameraTests.frames)
        var configuration = V4L2Camera.Configuration(path: "/dev/video7", frameTimeoutSeconds: 0.5)
        configuration.controls = controls
        return (try V4L2Camera(configuration: configuration, system: device), device)
    }

    @Test("the catalogue lists controls by v4l2-ctl's names, with value, default, range and menu")
    func listed() throws {
        let device = SimulatedV4L2Device(frames: V4L2CameraTests.frames)
        let controls = try CameraCatalog.describe(path: "/dev/video7", system: device).controls
        #expect(controls.map(\.name) == ["white_balance_temperature_auto", "horizontal_flip", "exposure_auto", "exposure_absolute"])
        let exposure = try #require(controls.first { $0.name == "exposure_auto" })
        #expect(exposure.kind == .menu && exposure.value == 3 && exposure.defaultValue == 3)
        #expect(exposure.menu == [.init(value: 1, name: "Manual Mode"), .init(value: 3, name: "Aperture Priority Mode")])
        #expect(exposure.summary == "exposure_auto  menu  3 (Aperture Priority Mode)  default 3, 1 Manual Mode, 3 Aperture Priority Mode")
        #expect(controls[3].summary == "exposure_absolute  integer  250  default 250, 3…2047  (inactive)")
    }

    @Test("controls are set in order before streaming and read back; the camera keeps them")
    func applied() throws {
        let (camera, device) = try camera([.init(name: "exposure_auto", value: 1), .init(name: "exposure_absolute", value: 156),
                                           .init(name: "white_balance_temperature_auto", value: 0)])
        #expect(camera.appliedControls == [.init(name: "exposure_auto", value: 1), .init(name: "exposure_absolute", value: 156),
                                           .init(name: "white_balance_temperature_auto", value: 0)])
        #expect(device.options.controls.map(\.value) == [0, 0, 1, 156])
        #expect(try camera.nextFrame() != nil)
        #expect(!camera.flipsHorizontally)
    }

    @Test("an unknown control names those there are; a value out of range names the range; the device is released")
    func refused() throws {
        let device = SimulatedV4L2Device(frames: V4L2CameraTests.frames)
        var configuration = V4L2Camera.Configuration(path: "/dev/video7")
        configuration.controls = [.init(name: "exposure", value: 1)]
        #expect(throws: CaptureError.unknownControl(path: "/dev/video7", name: "exposure", available: [
            "white_balance_temperature_auto", "horizontal_flip", "exposure_auto", "exposure_absolute"])) {
            _ = try V4L2Camera(configuration: configuration, system: device)
        }
        #expect(device.openDescriptors == 0)
        configuration.controls = [.init(name: "exposure_auto", value: 2)]
        do {
            _ = try V4L2Camera(configuration: configuration, system: device)
            Issue.record("a menu value the control lacks was accepted")
        } catch {
            #expect("\(error)" == "camera /dev/video7: exposure_auto cannot be set to 2: it takes 1 (Manual Mode), "
                    + "3 (Aperture Priority Mode).")
        }
        #expect(CameraControlSetting(argument: "exposure_auto=1") == .init(name: "exposure_auto", value: 1))
        #expect(CameraControlSetting(argument: "exposure_auto") == nil && CameraControlSetting(argument: "a=b") == nil)
    }

    @Test("a camera with its horizontal flip on is known to be mirrored; its frames are turned back")
    func flipped() throws {
        let (camera, _) = try camera([.init(name: "horizontal_flip", value: 1)])
        #expect(camera.flipsHorizontally)
        let mirrored = MirroredFrameSource(camera)
        let frame = try #require(try mirrored.nextFrame())
        #expect(frame.image.mirrored().pixels.count == frame.width * frame.height)
        #expect(frame.image[0, 0] == frame.image.mirrored()[frame.width - 1, 0])
        #expect(frame.image.mirrored().mirrored() == frame.image)
    }
}

@Suite("libv4lconvert on real buffers")
struct GrayConverterTests {
    @Test("YUYV → gray keeps every Y byte")
    func yuyv() throws {
        let width = 64, height = 32
        var yuyv = [UInt8](repeating: 0, count: width * height * 2)
        for index in 0..<(width * height) {
            yuyv[2 * index] = UInt8((index * 7) % 220 + 16)
            yuyv[2 * index + 1] = index % 2 == 0 ? 90 : 170
        }
        let gray = try yuyv.withUnsafeBytes {
            try GrayConverter().gray(from: $0, pixelFormat: PixelFormat.yuyv, width: width, height: height, bytesPerLine: width * 2)
        }
        let expected: [UInt8] = (0..<(width * height)).map { (index: Int) -> UInt8 in UInt8((index * 7) % 220 + 16) }
        #expect(gray.pixels == expected)
        // Padded rows (bytesperline beyond 2 × width) are read row by row; a short buffer is an error.
        var padded = [UInt8](repeating: 255, count: (width * 2 + 16) * height)
        for row in 0..<height { for x in 0..<(width * 2) { padded[row * (width * 2 + 16) + x] = yuyv[row * width * 2 + x] } }
        let fromPadded = try padded.withUnsafeBytes {
            try GrayConverter().gray(from: $0, pixelFormat: PixelFormat.yuyv, width: width, height: height, bytesPerLine: width * 2 + 16)
        }
        #expect(fromPadded.pixels == expected)
        #expect(throws: CaptureError.self) {
            try yuyv.prefix(width * height).withUnsafeBytes {
                try GrayConverter().gray(from: UnsafeRawBufferPointer($0), pixelFormat: PixelFormat.yuyv, width: width, height: height,
                                         bytesPerLine: width * 2)
            }
        }
    }

    @Test("MJPEG → gray matches FFmpeg's decode of the same JPEG")
    func mjpeg() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let jpeg = folder.path("frame.jpg")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240",
                                                             "-frames:v", "1", "-pix_fmt", "yuvj420p", jpeg])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: jpeg))
        let gray = try bytes.withUnsafeBytes {
            try GrayConverter().gray(from: $0, pixelFormat: PixelFormat.mjpeg, width: 320, height: 240, bytesPerLine: 0)
        }
        let reference = try #require(try VideoFileSource(path: jpeg).nextFrame()).image
        let difference = zip(gray.pixels, reference.pixels).map { abs(Int($0) - Int($1)) }
        #expect(Double(difference.reduce(0, +)) / Double(difference.count) < 3, "mean absolute difference")
    }

    @Test("MJPEG frames of a real face: the luma-only decode gives libv4lconvert's gray, and reads the samplings libv4lconvert refuses",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func mjpegDirectEqualsLibv4lconvert() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var frames: [(path: String, data: Data)] = []
        for layout in ["yuvj420p", "yuvj422p"] {
            let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", Fixtures.path("video/cap12_headturns_20s.mp4"),
                                                                 "-frames:v", "12", "-vf", "scale=640:480", "-pix_fmt", layout,
                                                                 "-q:v", "3", folder.path(layout + "-%02d.jpg")])
            try #require(made.status == 0, "ffmpeg: \(made.stderr)")
            for index in 1...12 {
                let path = folder.path(layout + String(format: "-%02d.jpg", index))
                frames.append((path, try Data(contentsOf: URL(fileURLWithPath: path))))
            }
        }
        let direct = try GrayConverter(), reference = try GrayConverter(mjpegDirect: false)
        var comparedWithLibv4lconvert = 0
        for frame in frames {
            let fast = try frame.data.withUnsafeBytes {
                try direct.gray(from: $0, pixelFormat: PixelFormat.mjpeg, width: 640, height: 480, bytesPerLine: 0)
            }
            if let slow = try? frame.data.withUnsafeBytes({
                try reference.gray(from: $0, pixelFormat: PixelFormat.mjpeg, width: 640, height: 480, bytesPerLine: 0)
            }) {
                comparedWithLibv4lconvert += 1
                let differing = zip(fast.pixels, slow.pixels).filter { $0 != $1 }.count
                #expect(differing == 0, "\(frame.path): \(differing) pixels differ from libv4lconvert's")
            } else {
                // A sampling libv4lconvert's own decoder refuses: libjpeg reads it, as FFmpeg does.
                let ffmpeg = try #require(try VideoFileSource(path: frame.path).nextFrame()).image
                let difference = zip(fast.pixels, ffmpeg.pixels).map { abs(Int($0) - Int($1)) }
                #expect(Double(difference.reduce(0, +)) / Double(difference.count) < 1, "\(frame.path) against FFmpeg")
            }
        }
        #expect(comparedWithLibv4lconvert >= 12)
        // A frame cut short (a USB transfer lost) is refused, not analysed half grey: the camera
        // counts it as damaged and goes on.
        let cut = frames[0].data.prefix(frames[0].data.count / 2)
        let refused = Result {
            try cut.withUnsafeBytes { try direct.gray(from: $0, pixelFormat: PixelFormat.mjpeg, width: 640, height: 480, bytesPerLine: 0) }
        }
        if case .failure(let error) = refused {
            #expect("\(error)".contains("damaged MJPEG frame"), "\(error)")
        } else {
            Issue.record("a JPEG cut in half was decoded")
        }
    }

    @Test("a damaged MJPEG buffer is an error, not a crash")
    func damaged() throws {
        let garbage = [UInt8](repeating: 0x55, count: 1000)
        #expect(throws: CaptureError.self) {
            try garbage.withUnsafeBytes {
                try GrayConverter().gray(from: $0, pixelFormat: PixelFormat.mjpeg, width: 320, height: 240, bytesPerLine: 0)
            }
        }
    }
}
