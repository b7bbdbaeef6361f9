import Foundation
import GazeCapture
import GazeCore
import GazeModel
import GazeVision

/// Which faces the tracker reports and which it flags, under each rule of the upright check
/// (`UprightRule`) side by side, on every image of the folders given.
///
/// Each image goes to a fresh tracker per rule (the CNN stages on when their model is installed),
/// as the first frame of a stream. A face is `tracked` (reported, with the yaw the pipeline's face
/// model gives it), `flagged` (found but not upright: not reported, the frame a face the fit cannot
/// represent) or `none`. Images are grouped by the folder they lie in (relative to the folder
/// given), so a layout of `frontal/`, `glasses/`, `hand/`, `turned/`, `profile/` gives the counts a
/// rule must keep and flag.
enum UprightBenchmark {
    static func run(inputs: [String], modelPath: String) throws {
        let model = try LandmarkModel.shared(path: modelPath)
        let cnn = try CNNFaceDetector.resolvePath(nil)
        if cnn == nil { print("no CNN model installed: HOG stages only (every face found is upright)") }
        let rules = UprightRule.allCases
        print(HeadPoseBenchmark.row(["image", "group"] + rules.map(\.rawValue)))
        var counts: [String: [[String: Int]]] = [:]
        for (group, file) in files(inputs) {
            var cells = [(file as NSString).lastPathComponent, group]
            for (index, rule) in rules.enumerated() {
                let verdict = try judge(file, model: model, finding: FaceFinding(cnnModelPath: cnn, uprightRule: rule))
                cells.append(verdict.text)
                counts[group, default: rules.map { _ in [:] }][index][verdict.kind, default: 0] += 1
            }
            print(HeadPoseBenchmark.row(cells))
        }
        print("per group and rule: tracked / flagged / none")
        for group in counts.keys.sorted() {
            let perRule = counts[group]!.map { "\($0["tracked"] ?? 0) / \($0["flagged"] ?? 0) / \($0["none"] ?? 0)" }
            print(HeadPoseBenchmark.row([group, ""] + perRule))
        }
    }

    /// What the tracker makes of one image's face under one rule.
    struct Verdict {
        var kind: String
        var text: String
    }

    static func judge(_ file: String, model: LandmarkModel, finding: FaceFinding) throws -> Verdict {
        let source = try VideoFileSource(path: file)
        guard let frame = try source.nextFrame() else { return Verdict(kind: "none", text: "unreadable") }
        let tracker = try FaceTracker(model: model, finding: finding)
        guard let face = try tracker.process(frame.image, timeSeconds: 0) else { return Verdict(kind: "none", text: "none") }
        if let uprightness = tracker.uprightness, !uprightness.isTrusted {
            switch uprightness {
            case .turned(let degrees): return Verdict(kind: "flagged", text: "turned \(degrees)")
            default: return Verdict(kind: "flagged", text: "unconfirmed" + finder(tracker) + sideFind(tracker, frame.image, fit: face.fit))
            }
        }
        let estimator = HeadPoseEstimator(intrinsics: CameraIntrinsics(width: source.width, height: source.height))
        let yaw = estimator.estimate(face.landmarks).yawDegrees
        return Verdict(kind: "tracked", text: "yaw " + HeadPoseBenchmark.text(yaw) + finder(tracker) + sideFind(tracker, frame.image, fit: face.fit))
    }

    /// For a face a side filter found: " outline T front S", the fit's outline turn
    /// (`UprightRule.outlineTurn`, what `turnedOutlines` weighs) and the best score of HOG's front
    /// filters alone around it (what `turnedFitsOrFront` compares with
    /// `UprightFaceCheck.frontThreshold`; "none" when they find nothing).
    static func sideFind(_ tracker: FaceTracker, _ image: GrayImage, fit: FaceLandmarks) -> String {
        guard let found = tracker.lastFound, found.box.hogFilter?.isTurned == true else { return "" }
        let score = (try? UprightFaceCheck().frontFilterScore(found.box, in: image)) ?? nil
        return " outline " + String(format: "%.2f", UprightRule.outlineTurn(of: fit))
            + " front " + (score.map { String(format: "%.2f", $0) } ?? "none")
    }

    /// The stage that found the face and, for HOG's, the filter: " (stage/filter)".
    static func finder(_ tracker: FaceTracker) -> String {
        guard let found = tracker.lastFound else { return "" }
        return " (\(found.stage.rawValue)" + (found.box.hogFilter.map { "/\($0)" } ?? "") + ")"
    }

    /// Each image of the inputs with its group: the folder it lies in, relative to the input
    /// folder ("." for an image given itself or lying in the input folder).
    static func files(_ inputs: [String]) -> [(String, String)] {
        inputs.flatMap { input -> [(String, String)] in
            let files = DetectionBenchmark.imageFiles([input])
            return files.map { file in
                guard file != input else { return (".", file) }
                let relative = String(file.dropFirst(input.count + 1))
                let folder = (relative as NSString).deletingLastPathComponent
                return (folder.isEmpty ? "." : folder, file)
            }
        }
    }
}
