import CV4L2
import GazeCore
import GazeModel
#if canImport(Glibc)
import Glibc
#endif

/// A V4L2 camera streaming through mmap buffers, delivering gray frames stamped in Unix time.
///
/// Opening negotiates the format (YUYV preferred, else MJPEG, at the requested size or the
/// nearest the driver grants), requests the frame rate with VIDIOC_S_PARM and records what was
/// granted, maps `bufferCount` buffers and starts streaming. `nextFrame` waits for the next filled
/// buffer, converts it to gray through libv4lconvert, maps the driver's monotonic timestamp to
/// Unix time, counts frames the driver dropped (gaps in its sequence numbers) and requeues it.
public final class V4L2Camera: FrameSource {
    public struct Configuration: Sendable {
        public var path: String
        public var width: Int
        public var height: Int
        public var framesPerSecond: Int
        public var bufferCount: Int
        /// How long `nextFrame` waits before declaring the camera lost.
        public var frameTimeoutSeconds: Double
        /// Controls set, in this order, before streaming starts (auto-exposure off, say).
        public var controls: [CameraControlSetting] = []

        public init(path: String = "/dev/video0", width: Int = 640, height: Int = 480, framesPerSecond: Int = 30,
                    bufferCount: Int = 4, frameTimeoutSeconds: Double = 2) {
            self.path = path
            self.width = width
            self.height = height
            self.framesPerSecond = framesPerSecond
            self.bufferCount = bufferCount
            self.frameTimeoutSeconds = frameTimeoutSeconds
        }
    }

    public let configuration: Configuration
    /// The card name the driver reports.
    public private(set) var name = ""
    public private(set) var driver = ""
    public private(set) var width = 0
    public private(set) var height = 0
    public private(set) var pixelFormat: UInt32 = 0
    private var bytesPerLine = 0
    /// The frame rate the driver granted (0 if it does not say).
    public private(set) var framesPerSecond = 0.0
    /// Frames the driver dropped (gaps in its sequence numbers).
    public private(set) var droppedFrames = 0
    /// Frames that arrived damaged and were skipped.
    public private(set) var damagedFrames = 0
    /// The controls set on opening, with the values read back from the camera.
    public private(set) var appliedControls: [CameraControlSetting] = []
    /// Whether the camera flips its picture left to right (its horizontal-flip control is on):
    /// the stream is mirrored.
    public private(set) var flipsHorizontally = false

    private let system: V4L2SystemCalls
    private let converter: GrayConverter
    private var descriptor: Int32 = -1
    private var buffers: [(start: UnsafeMutableRawPointer, length: Int)] = []
    private var streaming = false
    private var produced = 0
    private var lastSequence: UInt32?
    /// Unix time minus monotonic time, sampled when streaming starts.
    private var clockOffset = 0.0

    public init(configuration: Configuration, system: V4L2SystemCalls = LibV4L2SystemCalls()) throws {
        self.configuration = configuration
        self.system = system
        converter = try GrayConverter()
        let path = configuration.path
        descriptor = system.open(path)
        guard descriptor >= 0 else { throw Self.openError(path, system.lastError) }
        do {
            var capability = v4l2_capability()
            try call(GZ_VIDIOC_QUERYCAP, &capability, "VIDIOC_QUERYCAP")
            name = Self.text(capability.card)
            driver = Self.text(capability.driver)
            let caps = capability.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? capability.device_caps : capability.capabilities
            guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0, caps & UInt32(V4L2_CAP_STREAMING) != 0 else {
                throw CaptureError.notACaptureDevice(path: path)
            }
            try negotiateFormat()
            try requestFrameRate()
            let controls = CameraControls(path: path, descriptor: descriptor, system: system)
            appliedControls = try controls.apply(configuration.controls)
            flipsHorizontally = controls.flipsHorizontally
            try mapBuffers()
            try startStreaming()
        } catch {
            shutDown()
            throw error
        }
    }

    deinit { shutDown() }

    // MARK: - Set-up

    private func call(_ request: UInt, _ argument: UnsafeMutableRawPointer, _ operation: String) throws {
        guard system.ioctl(descriptor, request, argument) == 0 else {
            throw Self.runtimeError(configuration.path, operation, system.lastError)
        }
    }

    private func call<T>(_ request: UInt, _ value: inout T, _ operation: String) throws {
        try withUnsafeMutablePointer(to: &value) { try call(request, UnsafeMutableRawPointer($0), operation) }
    }

    /// The pixel formats the device offers.
    private func formats() throws -> [UInt32] {
        var codes: [UInt32] = []
        for index in 0..<64 {
            var description = v4l2_fmtdesc()
            description.index = UInt32(index)
            description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            let status = withUnsafeMutablePointer(to: &description) {
                system.ioctl(descriptor, GZ_VIDIOC_ENUM_FMT, UnsafeMutableRawPointer($0))
            }
            if status != 0 {
                if system.lastError == EINVAL { break }
                throw Self.runtimeError(configuration.path, "VIDIOC_ENUM_FMT", system.lastError)
            }
            codes.append(description.pixelformat)
        }
        return codes
    }

    private func negotiateFormat() throws {
        let offered = try formats()
        guard let chosen = [PixelFormat.yuyv, PixelFormat.mjpeg].first(where: offered.contains) else {
            let names = offered.map(PixelFormat.name).joined(separator: ", ")
            throw CaptureError.unsupportedFormat(
                path: configuration.path,
                detail: "it offers \(names.isEmpty ? "no formats" : names); gazerec reads YUYV or MJPEG")
        }
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        format.fmt.pix.width = UInt32(configuration.width)
        format.fmt.pix.height = UInt32(configuration.height)
        format.fmt.pix.pixelformat = chosen
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try call(GZ_VIDIOC_S_FMT, &format, "VIDIOC_S_FMT")
        guard format.fmt.pix.pixelformat == chosen, format.fmt.pix.width > 0, format.fmt.pix.height > 0 else {
            throw CaptureError.unsupportedFormat(path: configuration.path,
                                                 detail: "the driver refused \(PixelFormat.name(chosen)) at any size")
        }
        pixelFormat = chosen
        width = Int(format.fmt.pix.width)
        height = Int(format.fmt.pix.height)
        bytesPerLine = Int(format.fmt.pix.bytesperline)
    }

    private func requestFrameRate() throws {
        var parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        parameters.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: UInt32(configuration.framesPerSecond))
        let status = withUnsafeMutablePointer(to: &parameters) {
            system.ioctl(descriptor, GZ_VIDIOC_S_PARM, UnsafeMutableRawPointer($0))
        }
        if status != 0 {
            // Some drivers cannot set the rate; then the rate is whatever they deliver.
            guard system.lastError == EINVAL || system.lastError == ENOTTY else {
                throw Self.runtimeError(configuration.path, "VIDIOC_S_PARM", system.lastError)
            }
            framesPerSecond = 0
            return
        }
        let granted = parameters.parm.capture.timeperframe
        framesPerSecond = granted.numerator > 0 ? Double(granted.denominator) / Double(granted.numerator) : 0
    }

    private func mapBuffers() throws {
        var request = v4l2_requestbuffers()
        request.count = UInt32(configuration.bufferCount)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try call(GZ_VIDIOC_REQBUFS, &request, "VIDIOC_REQBUFS")
        guard request.count >= 2 else {
            throw CaptureError.deviceError(path: configuration.path, operation: "VIDIOC_REQBUFS",
                                           reason: "the driver granted \(request.count) buffers, at least 2 are needed")
        }
        for index in 0..<request.count {
            var buffer = v4l2_buffer()
            buffer.index = index
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            try call(GZ_VIDIOC_QUERYBUF, &buffer, "VIDIOC_QUERYBUF")
            let length = Int(buffer.length)
            guard let start = system.mmap(descriptor, length: length, offset: Int64(buffer.m.offset)) else {
                throw Self.runtimeError(configuration.path, "mmap", system.lastError)
            }
            buffers.append((start, length))
        }
    }

    private func startStreaming() throws {
        for index in buffers.indices { try queue(UInt32(index)) }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try call(GZ_VIDIOC_STREAMON, &type, "VIDIOC_STREAMON")
        streaming = true
        let clocks = system.clocks()
        clockOffset = clocks.realtime - clocks.monotonic
    }

    private func queue(_ index: UInt32) throws {
        var buffer = v4l2_buffer()
        buffer.index = index
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        try call(GZ_VIDIOC_QBUF, &buffer, "VIDIOC_QBUF")
    }

    // MARK: - Streaming

    public func nextFrame() throws -> Frame? {
        guard streaming else { return nil }
        let path = configuration.path
        var waited = 0.0
        while true {
            let slice: Int32 = 250
            let ready = system.pollReadable(descriptor, timeoutMilliseconds: slice)
            if ready < 0 { throw CaptureError.deviceLost(path: path, reason: Self.reason(system.lastError)) }
            if ready == 0 {
                waited += Double(slice) / 1000
                if waited >= configuration.frameTimeoutSeconds {
                    throw CaptureError.deviceLost(path: path, reason: "no frame for \(Int(configuration.frameTimeoutSeconds)) s")
                }
                continue
            }
            var buffer = v4l2_buffer()
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            let status = withUnsafeMutablePointer(to: &buffer) {
                system.ioctl(descriptor, GZ_VIDIOC_DQBUF, UnsafeMutableRawPointer($0))
            }
            if status != 0 {
                if system.lastError == EAGAIN { continue }
                throw CaptureError.deviceLost(path: path, reason: Self.reason(system.lastError))
            }
            defer { try? queue(buffer.index) }
            if let last = lastSequence, buffer.sequence > last + 1 {
                droppedFrames += Int(buffer.sequence - last - 1)
            }
            lastSequence = buffer.sequence
            guard Int(buffer.index) < buffers.count, buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) == 0 else {
                damagedFrames += 1
                continue
            }
            let mapped = buffers[Int(buffer.index)]
            let used = min(Int(buffer.bytesused), mapped.length)
            let image: GrayImage
            do {
                image = try converter.gray(from: UnsafeRawBufferPointer(start: mapped.start, count: used),
                                           pixelFormat: pixelFormat, width: width, height: height, bytesPerLine: bytesPerLine)
            } catch {
                damagedFrames += 1
                continue
            }
            let frame = Frame(index: produced, timestampSeconds: timestamp(of: buffer), image: image)
            produced += 1
            return frame
        }
    }

    /// Driver time → Unix time: monotonic stamps are shifted by the clock offset; others use now.
    private func timestamp(of buffer: v4l2_buffer) -> Double {
        let kind = buffer.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK)
        let driverSeconds = Double(buffer.timestamp.tv_sec) + Double(buffer.timestamp.tv_usec) / 1e6
        if kind == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC), driverSeconds > 0 {
            return driverSeconds + clockOffset
        }
        return system.clocks().realtime
    }

    /// Stops streaming and releases the device (also on deinit).
    public func close() { shutDown() }

    private func shutDown() {
        guard descriptor >= 0 else { return }
        if streaming {
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            _ = withUnsafeMutablePointer(to: &type) { system.ioctl(descriptor, GZ_VIDIOC_STREAMOFF, UnsafeMutableRawPointer($0)) }
            streaming = false
        }
        for buffer in buffers { system.munmap(buffer.start, length: buffer.length) }
        buffers = []
        system.close(descriptor)
        descriptor = -1
    }

    // MARK: - Errors

    static func reason(_ code: Int32) -> String { String(cString: strerror(code)).lowercased() }

    static func openError(_ path: String, _ code: Int32) -> CaptureError {
        switch code {
        case ENOENT, ENODEV, ENXIO: .noSuchDevice(path: path)
        case EBUSY: .deviceBusy(path: path)
        case EACCES, EPERM: .permissionDenied(path: path)
        default: .deviceError(path: path, operation: "open", reason: reason(code))
        }
    }

    static func runtimeError(_ path: String, _ operation: String, _ code: Int32) -> CaptureError {
        switch code {
        case EBUSY: .deviceBusy(path: path)
        case ENODEV, ENXIO, EIO: .deviceLost(path: path, reason: reason(code))
        default: .deviceError(path: path, operation: operation, reason: reason(code))
        }
    }

    static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
