import CDlibShim
import Foundation
import GazeCore
import GazeModel
import ShapeRegression

/// Why the vision layer failed, each a sentence a user can act on.
public enum VisionError: Error, CustomStringConvertible, Equatable {
    case modelMissing(path: String)
    case modelUnreadable(path: String, reason: String)
    case detectorFailed(reason: String)
    case detectorModelMissing(path: String)
    case detectorModelUnreadable(path: String, reason: String)
    case landmarkFitFailed(reason: String)
    /// Head pose was asked for with a face model this version does not measure with.
    case headPoseModelUnknown(name: String)

    public var description: String {
        switch self {
        case let .modelMissing(path):
            return "cannot load the landmark model \(path): no such file. Debian's package libdlib-data installs it."
        case let .modelUnreadable(path, reason):
            return "cannot load the landmark model \(path): \(reason). The file is not a dlib 68-point shape predictor."
        case let .detectorModelMissing(path):
            return "cannot load the face detector model \(path): no such file. It is dlib's CNN face detector, "
                + "mmod_human_face_detector.dat (CC0), which gazerec's set-up installs."
        case let .detectorModelUnreadable(path, reason):
            return "cannot load the face detector model \(path): \(reason). The file is not dlib's CNN face detector "
                + "(mmod_human_face_detector.dat)."
        case let .detectorFailed(reason):
            return "face detection failed: \(reason)."
        case let .landmarkFitFailed(reason):
            return "landmark fitting failed: \(reason)."
        case let .headPoseModelUnknown(name):
            return "cannot measure head pose with the \(name) face model: this version measures with "
                + "\(HeadPoseModelName.current) and \(HeadPoseModelName.rigidPoints). A calibration made with another "
                + "does not apply; calibrate again."
        }
    }
}

/// dlib's 68-point landmark model, loaded once per process and shared by all threads.
///
/// The model's ensemble of regression trees is evaluated by `ShapeRegressionModel` (Swift), which
/// gives dlib's landmarks before dlib rounds them to whole pixels; dlib's own evaluator stays the
/// reference (`DlibShapePredictor`). Loading takes about a second, so `shared(path:)` caches one
/// model per path.
public final class LandmarkModel: @unchecked Sendable {
    /// Debian's libdlib-data location.
    public static let defaultPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"

    /// `explicit`, else `GAZEREC_MODEL`, else the Debian path.
    public static func resolvePath(_ explicit: String?) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let environment = ProcessInfo.processInfo.environment["GAZEREC_MODEL"], !environment.isEmpty { return environment }
        return defaultPath
    }

    public let path: String
    public let meanShape: MeanShape
    public let regression: ShapeRegressionModel

    private static let cacheLock = NSLock()
    nonisolated(unsafe) private static var cache: [String: LandmarkModel] = [:]

    /// The model at `path`, loaded on first use.
    public static func shared(path: String) throws -> LandmarkModel {
        cacheLock.lock()
        defer { cacheLock.unlock() }
        if let model = cache[path] { return model }
        let model = try LandmarkModel(path: path)
        cache[path] = model
        return model
    }

    /// Loads the model (prefer `shared(path:)`).
    public init(path: String) throws {
        try checkModelFile(path)
        do {
            regression = try ShapeRegressionModel(contentsOf: path)
        } catch {
            throw VisionError.modelUnreadable(path: path, reason: Self.reason(error))
        }
        guard regression.partCount == FaceLandmarks.count else {
            throw VisionError.modelUnreadable(path: path, reason: "it has \(regression.partCount) landmarks, not \(FaceLandmarks.count)")
        }
        self.path = path
        let mean = regression.meanShape
        meanShape = MeanShape(points: (0..<FaceLandmarks.count).map { Point2(Double(mean[2 * $0]), Double(mean[2 * $0 + 1])) })
    }

    private static func reason(_ error: ShapeModelError) -> String {
        switch error {
        case let .unreadable(_, reason): return reason
        case let .malformed(_, offset, reason): return "byte \(offset): \(reason)"
        }
    }

    /// Fits the landmarks inside `box` (pixels; inclusive corners as dlib uses them), sub-pixel.
    public func fit(_ image: GrayImage, box: FaceBox) -> FaceLandmarks {
        let xy = image.pixels.withUnsafeBufferPointer { pixels in
            regression.fit(GrayImageView(pixels: pixels.baseAddress!, width: image.width, height: image.height, stride: image.width),
                           box: RegressionBox(left: box.left, top: box.top, right: box.right, bottom: box.bottom))
        }
        return FaceLandmarks(interleaved: xy)
    }
}

/// Refuses a missing file or a folder before a model is read from it.
private func checkModelFile(_ path: String) throws {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw VisionError.modelMissing(path: path)
    }
    if isDirectory.boolValue { throw VisionError.modelUnreadable(path: path, reason: "it is a directory") }
}

/// dlib's own shape predictor through the C shim: the reference the Swift evaluation is checked
/// against (tests, benchmarks). Landmarks rounded to whole pixels, as dlib gives them.
public final class DlibShapePredictor: @unchecked Sendable {
    let handle: OpaquePointer

    public init(path: String) throws {
        try checkModelFile(path)
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = gz_predictor_load(path, &error, error.count) else {
            let reason = text(error).trimmingCharacters(in: .whitespaces)
            throw VisionError.modelUnreadable(path: path, reason: reason.isEmpty ? "unreadable" : reason)
        }
        self.handle = handle
    }

    deinit { gz_predictor_free(handle) }

    /// dlib's landmarks inside `box`.
    public func fit(_ image: GrayImage, box: FaceBox) throws -> FaceLandmarks {
        var xy = [Double](repeating: 0, count: 2 * FaceLandmarks.count)
        var error = [CChar](repeating: 0, count: 256)
        let rect = gz_rect(left: box.left, top: box.top, right: box.right, bottom: box.bottom, score: box.score, filter: -1)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            gz_predictor_fit(handle, pixels.baseAddress, image.width, image.height, image.width, rect, &xy, &error, error.count)
        }
        guard status == 0 else { throw VisionError.landmarkFitFailed(reason: text(error)) }
        return FaceLandmarks(interleaved: xy)
    }
}

/// A face rectangle in pixels (inclusive corners) with the detector's score.
public struct FaceBox: Sendable, Equatable {
    public var left: Int
    public var top: Int
    public var right: Int
    public var bottom: Int
    /// The HOG detector's score (0 for boxes placed from landmarks).
    public var score: Double
    /// The filter of dlib's HOG detector that found the face (nil for the CNN's boxes and boxes
    /// placed from landmarks).
    public var hogFilter: HOGFilter?

    public init(left: Int, top: Int, right: Int, bottom: Int, score: Double = 0, hogFilter: HOGFilter? = nil) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
        self.score = score
        self.hogFilter = hogFilter
    }

    public var width: Int { right - left + 1 }
    public var height: Int { bottom - top + 1 }
    public var area: Int { width * height }
    public var centre: Point2 { Point2(Double(left + right) / 2, Double(top + bottom) / 2) }
}

/// The text of a NUL-terminated C character buffer.
func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
