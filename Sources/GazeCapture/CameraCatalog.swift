import CV4L2
import GazeCore
import GazeModel
#if canImport(Glibc)
import Glibc
#endif

/// What a V4L2 capture device offers: `gazerec devices`.
public struct CameraDescription: Sendable {
    public struct Size: Sendable {
        public var width: Int
        public var height: Int
        /// Discrete rates the driver lists for this size (empty if it gives ranges or none).
        public var framesPerSecond: [Double]
    }

    public struct Format: Sendable {
        public var code: UInt32
        public var name: String
        public var sizes: [Size]
        /// Whether gazerec can read it (YUYV or MJPEG).
        public var supported: Bool
    }

    public var path: String
    public var card: String
    public var driver: String
    public var busInfo: String
    public var formats: [Format]
    /// The controls the driver lists, with their current values.
    public var controls: [CameraControl]
}

/// Lists V4L2 capture devices and what they offer.
public enum CameraCatalog {
    /// `/dev/video*` character devices, sorted.
    public static func devicePaths() -> [String] {
        guard let directory = opendir("/dev") else { return [] }
        defer { closedir(directory) }
        var paths: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("video"), Int(name.dropFirst(5)) != nil { paths.append("/dev/" + name) }
        }
        return paths.sorted { Int($0.dropFirst(10))! < Int($1.dropFirst(10))! }
    }

    /// Describes one device (opened briefly, without streaming).
    public static func describe(path: String, system: V4L2SystemCalls = LibV4L2SystemCalls()) throws -> CameraDescription {
        let descriptor = system.open(path)
        guard descriptor >= 0 else { throw V4L2Camera.openError(path, system.lastError) }
        defer { system.close(descriptor) }
        func query<T>(_ request: UInt, _ value: inout T) -> Bool {
            withUnsafeMutablePointer(to: &value) { system.ioctl(descriptor, request, UnsafeMutableRawPointer($0)) == 0 }
        }
        var capability = v4l2_capability()
        guard query(GZ_VIDIOC_QUERYCAP, &capability) else {
            throw V4L2Camera.runtimeError(path, "VIDIOC_QUERYCAP", system.lastError)
        }
        let caps = capability.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? capability.device_caps : capability.capabilities
        guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 else { throw CaptureError.notACaptureDevice(path: path) }

        var formats: [CameraDescription.Format] = []
        for index in 0..<64 {
            var description = v4l2_fmtdesc()
            description.index = UInt32(index)
            description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            guard query(GZ_VIDIOC_ENUM_FMT, &description) else { break }
            let code = description.pixelformat
            var sizes: [CameraDescription.Size] = []
            for sizeIndex in 0..<64 {
                var size = v4l2_frmsizeenum()
                size.index = UInt32(sizeIndex)
                size.pixel_format = code
                guard query(GZ_VIDIOC_ENUM_FRAMESIZES, &size), size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue else { break }
                let width = size.discrete.width, height = size.discrete.height
                var rates: [Double] = []
                for rateIndex in 0..<32 {
                    var interval = v4l2_frmivalenum()
                    interval.index = UInt32(rateIndex)
                    interval.pixel_format = code
                    interval.width = width
                    interval.height = height
                    guard query(GZ_VIDIOC_ENUM_FRAMEINTERVALS, &interval),
                          interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue, interval.discrete.numerator > 0 else { break }
                    rates.append(Double(interval.discrete.denominator) / Double(interval.discrete.numerator))
                }
                sizes.append(.init(width: Int(width), height: Int(height), framesPerSecond: rates))
            }
            formats.append(.init(code: code, name: PixelFormat.name(code), sizes: sizes,
                                 supported: code == PixelFormat.yuyv || code == PixelFormat.mjpeg))
        }
        return CameraDescription(path: path, card: V4L2Camera.text(capability.card), driver: V4L2Camera.text(capability.driver),
                                 busInfo: V4L2Camera.text(capability.bus_info), formats: formats,
                                 controls: CameraControls(path: path, descriptor: descriptor, system: system).list())
    }
}
