import CV4L2
import GazeCore
import GazeModel
#if canImport(Glibc)
import Glibc
#endif

/// The system calls a V4L2 camera needs: the one seam between gazerec's camera logic and a device.
///
/// `LibV4L2SystemCalls` goes to the kernel through libv4l2; tests give the same logic an in-process
/// device that follows the V4L2 ioctl contract (formats, buffer queue, timestamps, errno values).
/// Calls return 0 (or a descriptor, or a pointer) on success and -1 (or nil) on failure, with the
/// reason in `lastError` as an errno value.
public protocol V4L2SystemCalls: AnyObject {
    func open(_ path: String) -> Int32
    func close(_ descriptor: Int32)
    func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32
    func mmap(_ descriptor: Int32, length: Int, offset: Int64) -> UnsafeMutableRawPointer?
    func munmap(_ start: UnsafeMutableRawPointer, length: Int)
    /// 1 when a frame can be dequeued, 0 on timeout, -1 on error.
    func pollReadable(_ descriptor: Int32, timeoutMilliseconds: Int32) -> Int32
    /// CLOCK_MONOTONIC and CLOCK_REALTIME now, seconds.
    func clocks() -> (monotonic: Double, realtime: Double)
    /// The errno of the last failed call.
    var lastError: Int32 { get }
}

/// The real device, through libv4l2.
public final class LibV4L2SystemCalls: V4L2SystemCalls {
    public private(set) var lastError: Int32 = 0

    public init() {}

    private func record(_ result: Int32) -> Int32 {
        if result < 0 { lastError = errno }
        return result
    }

    public func open(_ path: String) -> Int32 { record(gz_v4l2_open(path)) }
    public func close(_ descriptor: Int32) { _ = gz_v4l2_close(descriptor) }

    public func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        record(gz_v4l2_ioctl(descriptor, request, argument))
    }

    public func mmap(_ descriptor: Int32, length: Int, offset: Int64) -> UnsafeMutableRawPointer? {
        let start = gz_v4l2_mmap(descriptor, length, offset)
        if start == nil { lastError = errno }
        return start
    }

    public func munmap(_ start: UnsafeMutableRawPointer, length: Int) { _ = gz_v4l2_munmap(start, length) }

    public func pollReadable(_ descriptor: Int32, timeoutMilliseconds: Int32) -> Int32 {
        record(gz_poll_readable(descriptor, timeoutMilliseconds))
    }

    public func clocks() -> (monotonic: Double, realtime: Double) { (gz_monotonic_seconds(), gz_realtime_seconds()) }
}

/// V4L2 pixel formats gazerec knows by name.
public enum PixelFormat {
    public static let yuyv = GZ_PIX_FMT_YUYV
    public static let mjpeg = GZ_PIX_FMT_MJPEG

    /// "YUYV", "MJPG", … from a fourcc code.
    public static func name(_ code: UInt32) -> String {
        let bytes = (0..<4).map { UInt8((code >> (8 * $0)) & 0xFF) }
        return String(decoding: bytes.filter { $0 != 0x20 && $0 != 0 }, as: UTF8.self)
    }
}

/// YUYV and MJPEG buffers to 8-bit gray through libv4lconvert (no device needed).
public final class GrayConverter {
    private let handle: OpaquePointer

    /// `mjpegDirect` false converts MJPEG through libv4lconvert always (the reference the
    /// default grayscale decode is compared with in tests and benchmarks).
    public init(mjpegDirect: Bool = true) throws {
        guard let handle = gz_converter_create() else {
            throw CaptureError.deviceError(path: "libv4lconvert", operation: "set-up", reason: "cannot create a converter")
        }
        self.handle = handle
        if !mjpegDirect { gz_converter_set_mjpeg_direct(handle, 0) }
    }

    deinit { gz_converter_free(handle) }

    /// Converts `bytes` (a buffer of `pixelFormat`) into a gray image.
    public func gray(from bytes: UnsafeRawBufferPointer, pixelFormat: UInt32, width: Int, height: Int,
                     bytesPerLine: Int) throws -> GrayImage {
        var error = [CChar](repeating: 0, count: 256)
        var status: Int32 = 0
        // A conversion that succeeds writes every byte (no zero-filling first, on the frame path).
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height) { target, count in
            status = gz_converter_to_gray(handle, pixelFormat, UInt32(width), UInt32(height), UInt32(bytesPerLine),
                                          bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count,
                                          target.baseAddress, &error, error.count)
            if status != 0 { target.initialize(repeating: 0) }
            count = target.count
        }
        guard status == 0 else {
            throw CaptureError.deviceError(path: "libv4lconvert", operation: "\(PixelFormat.name(pixelFormat)) conversion",
                                           reason: cString(error))
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }
}


