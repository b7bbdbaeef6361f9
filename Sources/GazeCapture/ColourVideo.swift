import CVideoDecoder
import CVideoEncoder

/// How a colour frame's bytes are to be read: FFmpeg's codes of its YCbCr matrix, primaries,
/// transfer and range, carried from the decoded file into the written one.
public struct VideoColour: Sendable, Equatable {
    public var matrix: Int32
    public var primaries: Int32
    public var transfer: Int32
    public var range: Int32

    public init(matrix: Int32, primaries: Int32, transfer: Int32, range: Int32) {
        self.matrix = matrix
        self.primaries = primaries
        self.transfer = transfer
        self.range = range
    }

    /// FFmpeg's codes of the matrices gazerec tells apart (AVColorSpace) and of the full range.
    public static let bt709Matrix: Int32 = 1, unspecifiedMatrix: Int32 = 2, bt601Matrix: Int32 = 6, fullRange: Int32 = 2

    /// Whether the luma and chroma use the full 0…255 range (JPEG) rather than 16…235 and 16…240.
    public var isFullRange: Bool { range == Self.fullRange }

    /// The colour with an unspecified matrix replaced by the one players assume for the size:
    /// BT.709 from 720 rows up, BT.601 below.
    public func specified(height: Int) -> VideoColour {
        var colour = self
        if matrix == Self.unspecifiedMatrix || matrix == 0 { colour.matrix = height >= 720 ? Self.bt709Matrix : Self.bt601Matrix }
        return colour
    }
}

/// The byte layout of a planar 4:2:0 colour frame (I420), rows packed: the luma plane, then Cb,
/// then Cr, each chroma plane half the size rounded up.
public struct YUV420Layout: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }
    public var byteCount: Int { width * height + 2 * chromaWidth * chromaHeight }

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// A video file (or still image) read in colour: frames as planar 4:2:0 bytes, upright, in
/// presentation order with their times, through the same decoder as `VideoFileSource`.
public final class ColourVideoReader {
    public let path: String
    public let layout: YUV420Layout
    /// The stream's rate as a fraction (0/1 when unknown), and in frames per second.
    public let rateNumerator: Int32
    public let rateDenominator: Int32
    public var framesPerSecond: Double { rateNumerator > 0 ? Double(rateNumerator) / Double(rateDenominator) : 0 }
    /// Duration from the container (0 if unknown).
    public let durationSeconds: Double
    /// How the frames' bytes are to be read.
    public let colour: VideoColour
    public private(set) var framesRead = 0
    private let handle: OpaquePointer

    public init(path: String) throws {
        self.path = path
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = gz_video_open(path, &error, error.count) else {
            throw CaptureError.cannotOpenVideo(path: path, reason: cString(error))
        }
        self.handle = handle
        let info = gz_video_get_info(handle)
        layout = YUV420Layout(width: Int(info.width), height: Int(info.height))
        rateNumerator = info.rate_numerator
        rateDenominator = info.rate_denominator
        durationSeconds = info.duration_seconds
        colour = VideoColour(matrix: info.colour_matrix, primaries: info.colour_primaries, transfer: info.colour_transfer,
                             range: info.colour_range)
    }

    deinit { gz_video_close(handle) }

    /// Decodes the next frame into `frame` (resized to the layout's byte count); its time in
    /// seconds from the stream's start, or nil at the end.
    public func read(into frame: inout [UInt8]) throws -> Double? {
        if frame.count != layout.byteCount { frame = [UInt8](repeating: 0, count: layout.byteCount) }
        var pts = 0.0
        var error = [CChar](repeating: 0, count: 512)
        let status = frame.withUnsafeMutableBufferPointer { gz_video_read_yuv420(handle, $0.baseAddress, &pts, &error, error.count) }
        switch status {
        case 1:
            framesRead += 1
            return pts
        case 0:
            return nil
        default:
            throw CaptureError.decodingFailed(path: path, frame: framesRead, reason: cString(error))
        }
    }
}

/// Colour frames encoded into a video file: FFV1 (lossless: decoding gives back the very bytes
/// written) or H.264 (libx264, preset veryfast, CRF 18: visually lossless, a fraction of the size).
public final class ColourVideoWriter {
    public enum Codec: Sendable, Equatable { case ffv1, h264 }

    public let path: String
    public let layout: YUV420Layout
    public private(set) var framesWritten = 0
    private var handle: OpaquePointer?

    /// Creates `path` in `container` (FFmpeg's name: "matroska", "mp4"; the file's name is not
    /// consulted) at the rate `rateNumerator`/`rateDenominator` frames per second.
    public init(path: String, container: String, codec: Codec, layout: YUV420Layout, rateNumerator: Int32,
                rateDenominator: Int32, colour: VideoColour) throws {
        self.path = path
        self.layout = layout
        let format = gz_video_format(width: Int32(layout.width), height: Int32(layout.height), rate_numerator: rateNumerator,
                                     rate_denominator: rateDenominator, codec: codec == .h264 ? GZ_VIDEO_H264 : GZ_VIDEO_FFV1,
                                     colour_matrix: colour.matrix, colour_primaries: colour.primaries,
                                     colour_transfer: colour.transfer, colour_range: colour.range)
        var error = [CChar](repeating: 0, count: 256)
        handle = gz_video_writer_open_yuv420(path, container, format, &error, error.count)
        guard handle != nil else { throw CaptureError.cannotWriteVideo(path: path, reason: cString(error)) }
    }

    deinit { try? closeVideoWriter(handle, path: path) }

    /// Encodes one frame (the layout's bytes) at `microseconds` from the file's start (increasing).
    public func write(_ frame: [UInt8], microseconds: Int64) throws {
        guard let handle else { return }
        precondition(frame.count == layout.byteCount, "frame size differs from the video's")
        var error = [CChar](repeating: 0, count: 256)
        let status = frame.withUnsafeBufferPointer { gz_video_writer_write_yuv420(handle, $0.baseAddress, microseconds, &error, error.count) }
        guard status == 0 else { throw CaptureError.cannotWriteVideo(path: path, reason: cString(error)) }
        framesWritten += 1
    }

    /// Flushes and closes the file; later writes are ignored.
    public func finish() throws {
        defer { handle = nil }
        try closeVideoWriter(handle, path: path)
    }
}
