import Foundation
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import Testing
import TestSupport

/// The dlib model and fixtures the vision tests need, with the reason when they are absent.
enum VisionFixtures {
    static var modelPath: String { LandmarkModel.resolvePath(nil) }
    static var modelAvailable: Bool { FileManager.default.fileExists(atPath: modelPath) }
    static var available: Bool { modelAvailable && Fixtures.available }
    static var missingReason: Comment {
        modelAvailable ? Fixtures.missingReason
            : "dlib model not found at \(modelPath) (apt-get install libdlib-data, or set GAZEREC_MODEL)"
    }

    static func model() throws -> LandmarkModel { try LandmarkModel.shared(path: modelPath) }

    /// The first frame of an image or video fixture.
    static func image(_ relative: String) throws -> GrayImage {
        try #require(try VideoFileSource(path: Fixtures.path(relative)).nextFrame()).image
    }

    /// Reference faces (box + landmarks) by source and frame index.
    struct ReferenceFace {
        var box: [Int]
        var landmarks: [Point2]
        var yaw: Double
    }

    nonisolated(unsafe) private static var cache: [String: Any]?
    private static let lock = NSLock()

    static func reference() throws -> [String: Any] {
        lock.lock()
        defer { lock.unlock() }
        if let cache { return cache }
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("reference/dlib_solvepnp_reference.json")))
        let root = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        cache = root
        return root
    }

    static func face(_ object: [String: Any]) -> ReferenceFace? {
        guard let face = object["face"] as? [String: Any] else { return nil }
        let points = (face["landmarks"] as! [[Double]]).map { Point2($0[0], $0[1]) }
        let pnp = face["solvePnP"] as! [String: Any]
        return ReferenceFace(box: (face["box"] as! [Double]).map { Int($0) }, landmarks: points, yaw: pnp["yawDeg"] as! Double)
    }

    static func imageFace(_ name: String) throws -> ReferenceFace? {
        let images = try reference()["images"] as! [String: Any]
        return face(images[name] as! [String: Any])
    }

    static func videoFaces(_ name: String) throws -> [ReferenceFace?] {
        let videos = try reference()["videos"] as! [String: Any]
        let frames = (videos[name] as! [String: Any])["frames"] as! [[String: Any]]
        return frames.map(face)
    }

    /// Mean distance between corresponding landmarks, in pixels.
    static func meanError(_ a: [Point2], _ b: [Point2]) -> Double {
        zip(a, b).reduce(0) { $0 + $1.0.distance(to: $1.1) } / Double(a.count)
    }

    /// Intersection over union of two boxes (left, top, right, bottom).
    static func overlap(_ a: FaceBox, _ b: [Int]) -> Double {
        let left = max(a.left, b[0]), top = max(a.top, b[1]), right = min(a.right, b[2]), bottom = min(a.bottom, b[3])
        let intersection = Double(max(0, right - left) * max(0, bottom - top))
        let union = Double(a.width * a.height + (b[2] - b[0]) * (b[3] - b[1])) - intersection
        return intersection / union
    }
}
