import CDlibShim
import Foundation
import GazeCore
import GazeModel

/// dlib's frontal HOG face detector. Not thread-safe: one per thread (each `FaceTracker` owns one).
public final class FaceDetector {
    private let handle: OpaquePointer

    public init() throws {
        var error = [CChar](repeating: 0, count: 256)
        guard let handle = gz_detector_create(&error, error.count) else {
            throw VisionError.detectorFailed(reason: text(error))
        }
        self.handle = handle
    }

    deinit { gz_detector_free(handle) }

    /// Whether the detector runs dlib's HOG built for AVX2 (chosen when the processor has it; the
    /// same faces with the same scores as the baseline build, tested).
    public var usesWideVectors: Bool { gz_detector_wide(handle) != 0 }

    /// Runs the baseline (x86-64-v2) build from now on: for comparisons and benchmarks.
    public func dropWideVectors() { gz_detector_drop_wide(handle) }

    /// Faces in `image`, most confident first. `upsample` doubles the image first (finds smaller faces, 4× slower).
    public func detect(_ image: GrayImage, upsample: Bool = false, threshold: Double = 0) throws -> [FaceBox] {
        try detections(image, upsample: upsample, threshold: threshold).map { detection in
            var box = detection.box
            box.hogFilter = detection.filter
            return box
        }
    }

    /// Faces in `image` as `detect` finds them, each with the filter that found it. With `filters`,
    /// only those filters look (the baseline build): of overlapping faces dlib keeps the best-scoring
    /// one whichever filter found it, so this says whether they find a face another filter outscores.
    public func detections(_ image: GrayImage, upsample: Bool = false, threshold: Double = 0,
                           filters: Set<HOGFilter>? = nil) throws -> [HOGDetection] {
        var boxes = [gz_rect](repeating: gz_rect(), count: 16)
        var error = [CChar](repeating: 0, count: 256)
        let mask = filters.map { $0.reduce(Int32(0)) { $0 | Int32(1 << $1.rawValue) } }
        let count = image.pixels.withUnsafeBufferPointer { pixels in
            if let mask {
                return gz_detector_detect_filters(handle, pixels.baseAddress, image.width, image.height, image.width,
                                                  upsample ? 1 : 0, threshold, mask, &boxes, Int32(boxes.count), &error, error.count)
            }
            return gz_detector_detect(handle, pixels.baseAddress, image.width, image.height, image.width, upsample ? 1 : 0,
                                      threshold, &boxes, Int32(boxes.count), &error, error.count)
        }
        guard count >= 0 else { throw VisionError.detectorFailed(reason: text(error)) }
        return boxes.prefix(Int(min(count, 16))).map {
            HOGDetection(box: FaceBox(left: $0.left, top: $0.top, right: $0.right, bottom: $0.bottom, score: $0.score),
                         filter: HOGFilter(rawValue: Int($0.filter)) ?? .front)
        }
    }
}

/// Which of the five filters of dlib's frontal HOG detector found a face (dlib's `weight_index`,
/// in the order `get_frontal_face_detector` holds them). Each was trained on faces of one kind:
/// together they cover faces turned by up to about 45° and tilted in the image by some 20°.
public enum HOGFilter: Int, Sendable, Equatable, CaseIterable {
    /// A face looking into the camera.
    case front = 0
    /// A face turned so it looks towards the image's left.
    case lookingLeft = 1
    /// A face turned so it looks towards the image's right.
    case lookingRight = 2
    /// A front face tilted in the image one way.
    case frontRotatedLeft = 3
    /// A front face tilted in the image the other way.
    case frontRotatedRight = 4

    /// Whether the filter was trained on faces turned away from the camera (left or right).
    public var isTurned: Bool { self == .lookingLeft || self == .lookingRight }
}

/// A face the HOG detector found: its box and the filter that found it.
public struct HOGDetection: Sendable, Equatable {
    public var box: FaceBox
    public var filter: HOGFilter
}

/// dlib's CNN face detector (max-margin object detection; the model `mmod_human_face_detector.dat`).
///
/// Finds faces HOG misses — glasses, a fringe over the brows, strong side light, a face turned
/// or tilted up — at 10–50× HOG's cost, so the acquisition cascade runs it last, on a shrunk frame.
/// Not thread-safe: one per thread.
public final class CNNFaceDetector {
    private let handle: OpaquePointer
    public let path: String

    /// Where gazerec's set-up installs the model: `$XDG_DATA_HOME/gazerec/models/` (default
    /// `~/.local/share/gazerec/models/`).
    public static var installedPath: String {
        let environment = ProcessInfo.processInfo.environment
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return data + "/gazerec/models/mmod_human_face_detector.dat"
    }

    /// The model to use: `explicit`, else `GAZEREC_DETECTOR_MODEL`, else the installed one when it
    /// exists, else nil (no CNN stages). A path that is named but missing is an error.
    public static func resolvePath(_ explicit: String?) throws -> String? {
        let named = explicit.flatMap { $0.isEmpty ? nil : $0 }
            ?? ProcessInfo.processInfo.environment["GAZEREC_DETECTOR_MODEL"].flatMap { $0.isEmpty ? nil : $0 }
        if let named {
            guard FileManager.default.fileExists(atPath: named) else { throw VisionError.detectorModelMissing(path: named) }
            return named
        }
        return FileManager.default.fileExists(atPath: installedPath) ? installedPath : nil
    }

    /// Loads the model at `path`.
    public init(path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw VisionError.detectorModelMissing(path: path)
        }
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = gz_cnn_detector_load(path, &error, error.count) else {
            throw VisionError.detectorModelUnreadable(path: path, reason: text(error))
        }
        self.handle = handle
        self.path = path
    }

    deinit { gz_cnn_detector_free(handle) }

    /// Faces in `image`, most confident first.
    public func detect(_ image: GrayImage) throws -> [FaceBox] {
        var boxes = [gz_rect](repeating: gz_rect(), count: 16)
        var error = [CChar](repeating: 0, count: 256)
        let count = image.pixels.withUnsafeBufferPointer { pixels in
            gz_cnn_detector_detect(handle, pixels.baseAddress, image.width, image.height, image.width, &boxes,
                                   Int32(boxes.count), &error, error.count)
        }
        guard count >= 0 else { throw VisionError.detectorFailed(reason: text(error)) }
        return boxes.prefix(Int(min(count, 16))).map {
            FaceBox(left: $0.left, top: $0.top, right: $0.right, bottom: $0.bottom, score: $0.score)
        }
    }
}
