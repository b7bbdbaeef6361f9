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
    /// When the recording began, Unix seconds, from the container's `creation_time` tag (a
    /// camera's or a recorder's); nil when the file does not say.
    public let creationTimeSeconds: Double?
    /// The clockwise turn (0, 90, 180, 270 degrees) applied to every frame, from the display
    /// matrix in the file's container: frames come out upright, `width` × `height` as turned.
    public let rotationDegrees: Int

    private var handle: OpaquePointer?
    private var produced = 0

    /// Opens `path`. `lumaShortcut` false converts every frame with swscale (the reference the
    /// default path is checked against; tests and benchmarks).
    public init(path: String, lumaShortcut: Bool = true) throws {
        self.path = path
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = gz_video_open(path, &error, error.count) else {
            throw CaptureError.cannotOpenVideo(path: path, reason: cString(error))
        }
        self.handle = handle
        if !lumaShortcut { gz_video_set_luma_shortcut(handle, 0) }
        let info = gz_video_get_info(handle)
        width = Int(info.width)
        height = Int(info.height)
        rotationDegrees = Int(info.rotation_degrees)
        framesPerSecond = info.frames_per_second
        durationSeconds = info.duration_seconds
        frameCountHint = info.frame_count
        codec = withUnsafeBytes(of: info.codec) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        let created = withUnsafeBytes(of: info.creation_time) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        creationTimeSeconds = Self.unixSeconds(iso8601: created)
        name = path.split(separator: "/").last.map(String.init) ?? path
    }

    deinit { gz_video_close(handle) }

    /// Whether the last frame's gray came straight from its luma plane (a table checked against
    /// swscale on the format's first frame) rather than through swscale.
    public var usedLumaShortcut: Bool { gz_video_luma_shortcut_in_use(handle) != 0 }

    /// Whether the last frame's luma went through the table's arithmetic form (a range expansion,
    /// or none), eight pixels at a time, rather than a table read per pixel.
    public var usedLumaArithmetic: Bool { gz_video_luma_shortcut_in_use(handle) == 2 }

    public func nextFrame() throws -> Frame? {
        guard let handle else { return nil }
        var pts = 0.0
        var error = [CChar](repeating: 0, count: 512)
        var status: Int32 = 0
        // Every byte is written by a read that returns a frame (no zero-filling first).
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height) { buffer, count in
            status = gz_video_read(handle, buffer.baseAddress, &pts, &error, error.count)
            if status != 1 { buffer.initialize(repeating: 0) }
            count = buffer.count
        }
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

extension VideoFileSource {
    /// Unix seconds of an ISO 8601 UTC time as FFmpeg writes `creation_time`
    /// ("2020-07-24T21:40:43.000000Z", with or without the fraction and the Z); nil otherwise.
    static func unixSeconds(iso8601 text: String) -> Double? {
        let parts = text.split(whereSeparator: { $0 == "T" || $0 == " " })
        guard parts.count == 2 else { return nil }
        let date = parts[0].split(separator: "-").compactMap { Int($0) }
        var clock = String(parts[1])
        if clock.hasSuffix("Z") { clock.removeLast() }
        let fields = clock.split(separator: ":")
        guard date.count == 3, fields.count == 3, let hour = Int(fields[0]), let minute = Int(fields[1]),
              let second = Double(fields[2]), (1...12).contains(date[1]), (1...31).contains(date[2]),
              (0..<24).contains(hour), (0..<60).contains(minute), second >= 0, second < 61 else { return nil }
        // Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
        let y = date[1] <= 2 ? date[0] - 1 : date[0]
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (date[1] + (date[1] > 2 ? -3 : 9)) + 2) / 5 + date[2] - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = Double(days) * 86_400 + Double(hour * 3600 + minute * 60) + second
        // FFmpeg writes 1970-01-01T00:00:00 for "unknown" in some muxers.
        return seconds > 0 ? seconds : nil
    }
}
