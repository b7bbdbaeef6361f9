import CVideoEncoder
import GazeCore
import GazeModel

/// Gray frames written losslessly (FFV1) into a video file, each at its presentation time:
/// decoding the file gives back the very pixels written (`VideoFileSource`).
public final class VideoFileWriter {
    public let path: String
    public let width: Int
    public let height: Int
    public private(set) var framesWritten = 0
    private var handle: OpaquePointer?

    /// Creates `path` (its name chooses the container: `.mkv` for Matroska); `title` is stored as the file's title.
    public init(path: String, width: Int, height: Int, title: String?) throws {
        self.path = path
        self.width = width
        self.height = height
        var error = [CChar](repeating: 0, count: 256)
        handle = gz_video_writer_open(path, Int32(width), Int32(height), title, &error, error.count)
        guard handle != nil else { throw CaptureError.cannotWriteVideo(path: path, reason: cString(error)) }
    }

    deinit { try? closeVideoWriter(handle, path: path) }

    /// Encodes one frame at `microseconds` from the file's start (increasing).
    public func write(_ image: GrayImage, microseconds: Int64) throws {
        guard let handle else { return }
        precondition(image.width == width && image.height == height, "frame size differs from the video's")
        var error = [CChar](repeating: 0, count: 256)
        let status = image.pixels.withUnsafeBufferPointer {
            gz_video_writer_write(handle, $0.baseAddress, Int32(width), microseconds, &error, error.count)
        }
        guard status == 0 else { throw CaptureError.cannotWriteVideo(path: path, reason: cString(error)) }
        framesWritten += 1
    }

    /// Flushes and closes the file; later writes are ignored.
    public func finish() throws {
        defer { handle = nil }
        try closeVideoWriter(handle, path: path)
    }
}

/// Flushes and closes an encoder's file (nothing for nil).
func closeVideoWriter(_ handle: OpaquePointer?, path: String) throws {
    guard let handle else { return }
    var error = [CChar](repeating: 0, count: 256)
    guard gz_video_writer_close(handle, &error, error.count) == 0 else {
        throw CaptureError.cannotWriteVideo(path: path, reason: cString(error))
    }
}

/// A source whose every frame is also handed to `observe` as it is read (a tee).
public final class ObservedFrameSource: FrameSourceWrapper {
    public let source: FrameSource
    private let observe: (Frame) -> Void

    public init(_ source: FrameSource, observe: @escaping (Frame) -> Void) {
        self.source = source
        self.observe = observe
    }

    public func nextFrame() throws -> Frame? {
        guard let frame = try source.nextFrame() else { return nil }
        observe(frame)
        return frame
    }
}
