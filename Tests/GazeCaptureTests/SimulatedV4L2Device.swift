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
