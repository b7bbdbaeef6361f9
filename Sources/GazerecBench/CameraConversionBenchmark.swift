import Foundation
import GazeCapture

/// A camera's frame to gray, per frame: MJPEG through libjpeg's grayscale decode (what gazerec
/// does) beside libv4lconvert's YUV 4:2:0 conversion (what it did), and YUYV's Y bytes, on the
/// same frames in one run (interleaved, best of `rounds` medians).
enum CameraConversionBenchmark {
    static func run(jpegs: [String], width: Int, height: Int, rounds: Int = 3) throws {
        let frames = try jpegs.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        guard !frames.isEmpty else { return }
        let direct = try GrayConverter(), reference = try GrayConverter(mjpegDirect: false)
        // A YUYV frame of the same size (its content does not change the cost).
        let yuyv = Data((0..<(width * height * 2)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var best: [String: Double] = [:]
        for _ in 0..<rounds {
            for (name, converter, format, inputs) in [("MJPEG, libjpeg luma only", direct, PixelFormat.mjpeg, frames),
                                                       ("MJPEG, libv4lconvert to YUV 4:2:0", reference, PixelFormat.mjpeg, frames),
                                                       ("YUYV, Y bytes", direct, PixelFormat.yuyv, [yuyv])] {
                var times: [Double] = []
                for _ in 0..<(format == PixelFormat.yuyv ? 100 : 1) {
                    for data in inputs {
                        let start = DispatchTime.now().uptimeNanoseconds
                        _ = try data.withUnsafeBytes {
                            try converter.gray(from: $0, pixelFormat: format, width: width, height: height,
                                               bytesPerLine: format == PixelFormat.yuyv ? width * 2 : 0)
                        }
                        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                    }
                }
                let median = times.sorted()[times.count / 2]
                best[name] = min(best[name] ?? .infinity, median)
            }
        }
        print("camera frames to gray, \(width)×\(height), \(frames.count) JPEG frames, best of \(rounds) interleaved rounds (median ms)")
        for name in ["MJPEG, libjpeg luma only", "MJPEG, libv4lconvert to YUV 4:2:0", "YUYV, Y bytes"] {
            print("  " + name.padding(toLength: 36, withPad: " ", startingAt: 0) + String(format: "%8.3f ms", best[name] ?? .nan))
        }
        print(String(format: "  libjpeg luma only / libv4lconvert: %.2f×",
                     (best["MJPEG, libjpeg luma only"] ?? .nan) / (best["MJPEG, libv4lconvert to YUV 4:2:0"] ?? .nan)))
    }
}
