import GazeCore
import GazeModel

/// One camera or video frame: 8-bit gray pixels and when it was captured.
public struct Frame: Sendable {
    /// 0-based position in its source.
    public var index: Int
    /// Seconds: Unix time for cameras (from the driver's timestamp), presentation time from the
    /// start of the stream for video files.
    public var timestampSeconds: Double
    public var image: GrayImage

    public init(index: Int, timestampSeconds: Double, image: GrayImage) {
        self.index = index
        self.timestampSeconds = timestampSeconds
        self.image = image
    }

    public var width: Int { image.width }
    public var height: Int { image.height }
}

/// Something that produces frames in order.
public protocol FrameSource: AnyObject {
    /// A human name for the source (camera card name, or the video's file name).
    var name: String { get }
    /// Frame size in pixels.
    var width: Int { get }
    var height: Int { get }
    /// Nominal frame rate (what the driver granted or the container says); 0 if unknown.
    var framesPerSecond: Double { get }
    /// The next frame, or nil at the end of the stream.
    func nextFrame() throws -> Frame?
}

/// Why a frame source failed, each a sentence a user can act on.
///
/// Which command lists a camera's formats and controls is the command line's to add (its `ErrorHints`).
public enum CaptureError: Error, CustomStringConvertible, Equatable {
    case cannotOpenVideo(path: String, reason: String)
    case decodingFailed(path: String, frame: Int, reason: String)
    case noSuchDevice(path: String)
    case deviceBusy(path: String)
    case permissionDenied(path: String)
    case notACaptureDevice(path: String)
    case unsupportedFormat(path: String, detail: String)
    case deviceLost(path: String, reason: String)
    case deviceError(path: String, operation: String, reason: String)
    case unknownControl(path: String, name: String, available: [String])
    case badControl(path: String, detail: String)
    case cannotWriteVideo(path: String, reason: String)

    public var description: String {
        switch self {
        case let .cannotOpenVideo(path, reason):
            return "cannot open video \(path): \(reason). Give a video file FFmpeg can read (mp4, mkv, avi, mov, webm, …)."
        case let .decodingFailed(path, frame, reason):
            return "cannot decode video \(path) at frame \(frame): \(reason). The file may be damaged or truncated."
        case let .noSuchDevice(path):
            return "cannot open camera \(path): no such device."
        case let .deviceBusy(path):
            return "cannot open camera \(path): it is busy (another program is using it). Close that program and try again."
        case let .permissionDenied(path):
            return "cannot open camera \(path): permission denied. Add your user to the 'video' group."
        case let .notACaptureDevice(path):
            return "cannot use \(path): it is not a video capture device."
        case let .unsupportedFormat(path, detail):
            return "cannot use camera \(path): \(detail)."
        case let .deviceLost(path, reason):
            return "camera \(path) was lost: \(reason). Check the cable; what was captured so far is kept."
        case let .deviceError(path, operation, reason):
            return "camera \(path) failed during \(operation): \(reason)."
        case let .unknownControl(path, name, available):
            return "camera \(path) has no control '\(name)'"
                + (available.isEmpty ? " (it offers none that can be set)." : "; it offers \(available.joined(separator: ", ")).")
        case let .cannotWriteVideo(path, reason):
            return "cannot write the video \(path): \(reason). Check the folder exists and has room."
        case let .badControl(path, detail):
            return "camera \(path): \(detail)."
        }
    }
}

/// The text of a NUL-terminated C character buffer.
func cString(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
