import CVideoDecoder
import GazeCore
import GazeModel

/// Frames from a video file (or a still image) through FFmpeg: lossless, in presentation order,
/// with real presentation timestamps, deterministic.
public final class VideoFileSource: FrameSource {
    public let path: String
    public let name: String
    public let width: Int
    public let height: Int
    public let framesPerSecond: Double
    /// Duration in seconds from the container (0 if unknown).
    public let durationSeconds: Double
    /// Frame count from the container (0 if unknown).
    public let frameCountHint: Int
    public let codec: String

    private var handle: OpaquePointer?
    private var produced = 0

    public init(path: String) throws {
        self.path = path
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = gz_video_open(path, &error, error.count) else {
            throw CaptureError.cannotOpenVideo(path: path, reason: cString(error))
        }
        self.handle = handle
        let info = gz_video_get_info(handle)
        width = Int(info.width)
        height = Int(info.height)
        framesPerSecond = info.frames_per_second
        durationSeconds = info.duration_seconds
        frameCountHint = info.frame_count
        codec = withUnsafeBytes(of: info.codec) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        name = path.split(separator: "/").last.map(String.init) ?? path
    }

    deinit { gz_video_close(handle) }

    public func nextFrame() throws -> Frame? {
        guard let handle else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height)
        var pts = 0.0
        var error = [CChar](repeating: 0, count: 512)
        let status = pixels.withUnsafeMutableBufferPointer { gz_video_read(handle, $0.baseAddress, &pts, &error, error.count) }
        switch status {
        case 1:
            defer { produced += 1 }
            return Frame(index: produced, timestampSeconds: pts, image: GrayImage(width: width, height: height, pixels: pixels))
        case 0:
            return nil
        default:
            throw CaptureError.decodingFailed(path: path, frame: produced, reason: cString(error))
        }
    }
}
