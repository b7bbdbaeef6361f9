import Foundation
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
@testable import ShapeRegression
import Testing
import TestSupport

/// dlib's model, loaded once for the suite by both evaluators.
private enum Models {
    static let path = LandmarkModel.resolvePath(nil)
    static var available: Bool { FileManager.default.fileExists(atPath: path) && Fixtures.available }
    static let missingReason: Comment = FileManager.default.fileExists(atPath: path)
        ? Fixtures.missingReason : "dlib model not found at \(LandmarkModel.resolvePath(nil)) (apt-get install libdlib-data)"
    static let ours: ShapeRegressionModel = try! ShapeRegressionModel(contentsOf: path)
    static let dlib: DlibShapePredictor = try! DlibShapePredictor(path: path)
}

/// The reference file's dlib boxes, per image and per video frame.
private func referenceBoxes() throws -> [(source: String, frame: Int, box: [Int])] {
    let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("reference/dlib_solvepnp_reference.json")))
    let root = try JSONSerialization.jsonObject(with: data) as! [String: Any]
    var boxes: [(String, Int, [Int])] = []
    for (name, value) in (root["images"] as! [String: Any]).sorted(by: { $0.key < $1.key }) {
        if let face = (value as! [String: Any])["face"] as? [String: Any] {
            boxes.append((name, 0, (face["box"] as! [Double]).map { Int($0) }))
        }
    }
    for (name, value) in (root["videos"] as! [String: Any]).sorted(by: { $0.key < $1.key }) {
        for (index, frame) in ((value as! [String: Any])["frames"] as! [[String: Any]]).enumerated() {
            if let face = frame["face"] as? [String: Any] {
                boxes.append((name, index, (face["box"] as! [Double]).map { Int($0) }))
            }
        }
    }
    return boxes
}

@Suite("dlib's landmark model evaluated in Swift")
struct ShapeRegressionTests {
    @Test("equal to dlib's landmarks after rounding on every face of every shared image and video frame",
          .enabled(if: Models.available, Models.missingReason))
    func equalToDlib() throws {
        let boxes = try referenceBoxes()
        let sources = Set(boxes.map(\.source))
        var compared = 0, differing = 0, largest = 0.0, fractional = 0
        var firstDifference: String?
        for source in sources.sorted() {
            let wanted = Dictionary(grouping: boxes.filter { $0.source == source }, by: \.frame)
            let video = try VideoFileSource(path: Fixtures.path(source.contains("/") ? source : "video/\(source)"))
            while let frame = try video.nextFrame() {
                guard let reference = wanted[frame.index]?.first?.box else { continue }
                let image = frame.image
                // The detector's box, and on every fifth frame two more a tracker could give: shifted
                // and grown, and one reaching past the image's corner (feature pixels outside read 0).
                var candidates = [reference]
                if frame.index % 5 == 0 {
                    let side = reference[2] - reference[0]
                    candidates.append([reference[0] + 3, reference[1] - 2, reference[2] + side / 7, reference[3] + side / 9])
                    candidates.append([-side / 3, -side / 4, side * 2 / 3, side * 3 / 4])
                }
                for box in candidates {
                let dlib = try Models.dlib.fit(image, box: FaceBox(left: box[0], top: box[1], right: box[2], bottom: box[3]))
                let ours = image.pixels.withUnsafeBufferPointer { pixels in
                    Models.ours.fit(GrayImageView(pixels: pixels.baseAddress!, width: image.width, height: image.height,
                                                  stride: image.width),
                                    box: RegressionBox(left: box[0], top: box[1], right: box[2], bottom: box[3]))
                }
                compared += 1
                var same = true
                for index in 0..<68 {
                    let x = ours[2 * index], y = ours[2 * index + 1]
                    if x != x.rounded(.down) || y != y.rounded(.down) { fractional += 1 }
                    let reference = dlib[index]
                    if (x + 0.5).rounded(.down) != reference.x || (y + 0.5).rounded(.down) != reference.y {
                        same = false
                        largest = max(largest, Point2(x, y).distance(to: reference))
                    }
                }
                if !same {
                    differing += 1
                    if firstDifference == nil { firstDifference = "\(source) frame \(frame.index) box \(box)" }
                }
                }
            }
        }
        #expect(compared > 4000, "faces compared: \(compared)")
        #expect(differing == 0, "\(differing) of \(compared) fits differ from dlib (first: \(firstDifference ?? "-"), largest \(largest) px)")
        // The point of evaluating it ourselves: the positions keep their fractions.
        #expect(fractional > compared * 60)
    }
}

@Suite("Rounding feature pixels")
struct FeaturePixelRoundingTests {
    @Test("the call-free floor gives Int(floor(x)) for whole, half and fractional, positive and negative values")
    func floorWithoutCall() {
        var values: [Double] = [0, -0.0, 0.5, -0.5, 1, -1, 0.49999999999999994, -0.49999999999999994, 1e9 + 0.5, -1e9 - 0.5,
                                Double(Int32.max), Double(Int32.min), 2.0.nextDown, (-2.0).nextUp, (-2.0).nextDown]
        for step in -4000...4000 { values.append(Double(step) / 7.3) }
        for value in values { #expect(floorToInt(value) == Int(floor(value)), "\(value)") }
    }
}
