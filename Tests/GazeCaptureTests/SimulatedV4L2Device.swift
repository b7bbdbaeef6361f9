import CV4L2
import GazeCore
import GazeModel
import Glibc
@testable import GazeCapture

/// An in-process V4L2 capture device that follows the ioctl contract, for testing the camera logic.
///
/// It offers a configurable list of pixel formats and frame sizes, clamps requested sizes and
/// rates the way drivers do, keeps a real queue of mmap buffers (frames land only in queued
/// buffers, dequeued in order), stamps buffers with monotonic time and sequence numbers, and can
/// be told to fail with the errno values real drivers use (EBUSY, ENODEV, EIO, EAGAIN).
final class SimulatedV4L2Device: V4L2SystemCalls {
    struct Options {
        var formats: [UInt32] = [PixelFormat.yuyv, PixelFormat.mjpeg]
        /// Sizes the driver can deliver; a request snaps to the nearest.
        var sizes: [(Int, Int)] = [(640, 480), (320, 240), (1280, 720)]
        /// Highest rate the driver grants; nil = no VIDIOC_S_PARM support (EINVAL).
        var maximumFramesPerSecond: Int? = 30
        var buffersGranted = 4
        var openError: Int32?
        /// Frames it delivers before the device vanishes (then DQBUF and poll fail with ENODEV).
        var framesBeforeLoss: Int?
        /// Every n-th DQBUF first fails with EAGAIN (a spurious wake-up).
        var eagainEvery: Int?
        /// Sequence numbers skipped after each frame (simulated driver drops).
        var sequenceGap: UInt32 = 0
        var capabilities = UInt32(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING)
        var card = "Simulated Camera"
        /// Its controls, in id order (a UVC webcam's usual ones).
        var controls: [Control] = Control.webcam
    }

    /// A control as the driver describes it; `value` changes with VIDIOC_S_CTRL.
    struct Control {
        var id: UInt32
        var label: String
        var type: v4l2_ctrl_type
        var minimum: Int32
        var maximum: Int32
        var defaultValue: Int32
        var value: Int32
        var menu: [Int32: String] = [:]
        var flags: UInt32 = 0

        static let webcam: [Control] = [
            Control(id: UInt32(V4L2_CID_BASE) + 12, label: "White Balance Temperature, Auto", type: V4L2_CTRL_TYPE_BOOLEAN,
                    minimum: 0, maximum: 1, defaultValue: 1, value: 1),
            Control(id: GZ_V4L2_CID_HFLIP, label: "Horizontal Flip", type: V4L2_CTRL_TYPE_BOOLEAN,
                    minimum: 0, maximum: 1, defaultValue: 0, value: 0),
            Control(id: UInt32(V4L2_CID_CAMERA_CLASS_BASE) + 1, label: "Exposure, Auto", type: V4L2_CTRL_TYPE_MENU,
                    minimum: 0, maximum: 3, defaultValue: 3, value: 3, menu: [1: "Manual Mode", 3: "Aperture Priority Mode"]),
            Control(id: UInt32(V4L2_CID_CAMERA_CLASS_BASE) + 2, label: "Exposure (Absolute)", type: V4L2_CTRL_TYPE_INTEGER,
                    minimum: 3, maximum: 2047, defaultValue: 250, value: 250, flags: UInt32(V4L2_CTRL_FLAG_INACTIVE)),
        ]
    }

    var options: Options
    /// Gray frames it serves, cycled.
    let frames: [GrayImage]
    private(set) var lastError: Int32 = 0
    private(set) var openDescriptors = 0
    private(set) var streaming = false
    private(set) var width = 0
    private(set) var height = 0
    private(set) var pixelFormat: UInt32 = 0
    private var buffers: [UnsafeMutableRawPointer] = []
    private var bufferLength = 0
    private var queued: [UInt32] = []
    private var delivered = 0
    private var dequeueCalls = 0
    private var sequence: UInt32 = 0
    private(set) var unmapped = 0
    var monotonic = 1000.0
    let realtimeOffset = 1_763_000_000.0

    init(options: Options = Options(), frames: [GrayImage]) {
        self.options = options
        self.frames = frames
    }

    deinit { buffers.forEach { $0.deallocate() } }

    private func fail(_ code: Int32) -> Int32 {
        lastError = code
        return -1
    }

    func open(_ path: String) -> Int32 {
        if let code = options.openError { return fail(code) }
        openDescriptors += 1
        return 42
    }

    func close(_ descriptor: Int32) { openDescriptors -= 1 }

    var lost: Bool { options.framesBeforeLoss.map { delivered >= $0 } ?? false }

    func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        switch request {
        case GZ_VIDIOC_QUERYCAP:
            let capability = argument.assumingMemoryBound(to: v4l2_capability.self)
            capability.pointee = v4l2_capability()
            withUnsafeMutableBytes(of: &capability.pointee.card) { bytes in
                for (index, byte) in options.card.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
            }
            capability.pointee.capabilities = options.capabilities
            return 0
        case GZ_VIDIOC_ENUM_FMT:
            let description = argument.assumingMemoryBound(to: v4l2_fmtdesc.self)
            let index = Int(description.pointee.index)
            guard index < options.formats.count else { return fail(EINVAL) }
            description.pointee.pixelformat = options.formats[index]
            return 0
        case GZ_VIDIOC_ENUM_FRAMESIZES:
            let sizes = argument.assumingMemoryBound(to: v4l2_frmsizeenum.self)
            let index = Int(sizes.pointee.index)
            guard options.formats.contains(sizes.pointee.pixel_format), index < options.sizes.count else { return fail(EINVAL) }
            sizes.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
            sizes.pointee.discrete = v4l2_frmsize_discrete(width: UInt32(options.sizes[index].0), height: UInt32(options.sizes[index].1))
            return 0
        case GZ_VIDIOC_ENUM_FRAMEINTERVALS:
            let intervals = argument.assumingMemoryBound(to: v4l2_frmivalenum.self)
            let rates = [options.maximumFramesPerSecond ?? 30, 15]
            let index = Int(intervals.pointee.index)
            guard index < rates.count else { return fail(EINVAL) }
            intervals.pointee.type = V4L2_FRMIVAL_TYPE_DISCRETE.rawValue
            intervals.pointee.discrete = v4l2_fract(numerator: 1, denominator: UInt32(rates[index]))
            return 0
        case GZ_VIDIOC_S_FMT:
            guard !streaming else { return fail(EBUSY) }
            let format = argument.assumingMemoryBound(to: v4l2_format.self)
            var pix = format.pointee.fmt.pix
            if !options.formats.contains(pix.pixelformat) { pix.pixelformat = options.formats[0] }
            let requested = (Int(pix.width), Int(pix.height))
            let nearest = options.sizes.min { abs($0.0 - requested.0) + abs($0.1 - requested.1) < abs($1.0 - requested.0) + abs($1.1 - requested.1) }!
            pix.width = UInt32(nearest.0)
            pix.height = UInt32(nearest.1)
            pix.bytesperline = pix.pixelformat == PixelFormat.yuyv ? pix.width * 2 : 0
            pix.sizeimage = pix.width * pix.height * 2
            format.pointee.fmt.pix = pix
            width = nearest.0
            height = nearest.1
            pixelFormat = pix.pixelformat
            return 0
        case GZ_VIDIOC_S_PARM:
            guard let maximum = options.maximumFramesPerSecond else { return fail(EINVAL) }
            let parameters = argument.assumingMemoryBound(to: v4l2_streamparm.self)
            let asked = parameters.pointee.parm.capture.timeperframe
            let rate = asked.numerator > 0 ? Int(asked.denominator / asked.numerator) : maximum
            parameters.pointee.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: UInt32(min(rate, maximum)))
            return 0
        case GZ_VIDIOC_REQBUFS:
            let request = argument.assumingMemoryBound(to: v4l2_requestbuffers.self)
            request.pointee.count = UInt32(min(Int(request.pointee.count), options.buffersGranted))
            bufferLength = width * height * 2
            buffers.forEach { $0.deallocate() }
            buffers = (0..<Int(request.pointee.count)).map { _ in
                UnsafeMutableRawPointer.allocate(byteCount: bufferLength, alignment: 16)
            }
            return 0
        case GZ_VIDIOC_QUERYBUF:
            let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self)
            guard Int(buffer.pointee.index) < buffers.count else { return fail(EINVAL) }
            buffer.pointee.length = UInt32(bufferLength)
            buffer.pointee.m.offset = buffer.pointee.index * 4096
            return 0
        case GZ_VIDIOC_QBUF:
            let index = argument.assumingMemoryBound(to: v4l2_buffer.self).pointee.index
            guard Int(index) < buffers.count, !queued.contains(index) else { return fail(EINVAL) }
            queued.append(index)
            return 0
        case GZ_VIDIOC_STREAMON:
            guard !queued.isEmpty else { return fail(EINVAL) }
            streaming = true
            return 0
        case GZ_VIDIOC_STREAMOFF:
            streaming = false
            queued = []
            return 0
        case GZ_VIDIOC_DQBUF:
            return dequeue(argument.assumingMemoryBound(to: v4l2_buffer.self))
        case GZ_VIDIOC_QUERYCTRL:
            let query = argument.assumingMemoryBound(to: v4l2_queryctrl.self)
            let asked = query.pointee.id
            let next = asked & GZ_V4L2_CTRL_FLAG_NEXT_CTRL != 0
            let wanted = asked & ~GZ_V4L2_CTRL_FLAG_NEXT_CTRL
            guard let control = options.controls.first(where: { next ? $0.id > wanted : $0.id == wanted }) else {
                return fail(EINVAL)
            }
            var result = v4l2_queryctrl()
            result.id = control.id
            result.type = control.type.rawValue
            withUnsafeMutableBytes(of: &result.name) { bytes in
                for (index, byte) in control.label.utf8.prefix(31).enumerated() { bytes[index] = byte }
            }
            result.minimum = control.minimum
            result.maximum = control.maximum
            result.step = 1
            result.default_value = control.defaultValue
            result.flags = control.flags
            query.pointee = result
            return 0
        case GZ_VIDIOC_QUERYMENU:
            let item = argument.assumingMemoryBound(to: v4l2_querymenu.self)
            guard let control = options.controls.first(where: { $0.id == item.pointee.id }),
                  let name = control.menu[Int32(item.pointee.index)] else { return fail(EINVAL) }
            withUnsafeMutableBytes(of: &item.pointee.name) { bytes in
                for (index, byte) in name.utf8.prefix(31).enumerated() { bytes[index] = byte }
            }
            return 0
        case GZ_VIDIOC_G_CTRL, GZ_VIDIOC_S_CTRL:
            let control = argument.assumingMemoryBound(to: v4l2_control.self)
            guard let index = options.controls.firstIndex(where: { $0.id == control.pointee.id }) else { return fail(EINVAL) }
            if request == GZ_VIDIOC_G_CTRL {
                control.pointee.value = options.controls[index].value
                return 0
            }
            let entry = options.controls[index]
            guard (entry.minimum...entry.maximum).contains(control.pointee.value) else { return fail(ERANGE) }
            if streaming { return fail(EBUSY) }
            options.controls[index].value = control.pointee.value
            // Manual exposure makes the exposure time active, as UVC drivers do.
            if entry.label == "Exposure, Auto" {
                let exposure = options.controls.firstIndex { $0.label == "Exposure (Absolute)" }!
                options.controls[exposure].flags = control.pointee.value == 1 ? 0 : UInt32(V4L2_CTRL_FLAG_INACTIVE)
            }
            return 0
        default:
            return fail(ENOTTY)
        }
    }

    private func dequeue(_ buffer: UnsafeMutablePointer<v4l2_buffer>) -> Int32 {
        guard streaming else { return fail(EINVAL) }
        if lost { return fail(ENODEV) }
        dequeueCalls += 1
        if let every = options.eagainEvery, dequeueCalls % every == 0 { return fail(EAGAIN) }
        guard !queued.isEmpty else { return fail(EAGAIN) }
        let index = queued.removeFirst()
        // Fill the buffer with the next frame as YUYV: Y0 U Y1 V with neutral chroma.
        let image = frames[delivered % frames.count]
        let target = buffers[Int(index)].assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            for x in 0..<width {
                let gray = image.pixels[(y * image.height / height) * image.width + x * image.width / width]
                target[(y * width + x) * 2] = gray
                target[(y * width + x) * 2 + 1] = 128
            }
        }
        monotonic += 1.0 / Double(options.maximumFramesPerSecond ?? 30)
        var result = v4l2_buffer()
        result.index = index
        result.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        result.memory = V4L2_MEMORY_MMAP.rawValue
        result.bytesused = UInt32(bufferLength)
        result.sequence = sequence
        result.flags = UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
        result.timestamp = timeval(tv_sec: Int(monotonic), tv_usec: Int((monotonic - monotonic.rounded(.down)) * 1e6))
        buffer.pointee = result
        sequence += 1 + options.sequenceGap
        delivered += 1
        return 0
    }

    func mmap(_ descriptor: Int32, length: Int, offset: Int64) -> UnsafeMutableRawPointer? {
        let index = Int(offset / 4096)
        guard index < buffers.count, length == bufferLength else {
            lastError = EINVAL
            return nil
        }
        return buffers[index]
    }

    func munmap(_ start: UnsafeMutableRawPointer, length: Int) { unmapped += 1 }

    func pollReadable(_ descriptor: Int32, timeoutMilliseconds: Int32) -> Int32 {
        if lost { return fail(ENODEV) }
        return streaming && !queued.isEmpty ? 1 : 0
    }

    func clocks() -> (monotonic: Double, realtime: Double) { (monotonic, monotonic + realtimeOffset) }
}
