import Foundation
import GazeCapture
import GazeCore
import GazeModel
import GazeVision

/// Head pose on real faces, two face models side by side on the very same landmarks: the
/// six-point generic model gazerec used before and the rigid points of the 68-point mean shape.
///
/// Without ground truth here, it reports what a right pose must show: a face looking into the
/// camera near 0° on every angle (the portraits; the frames of a clip whose yaw is under 5°),
/// roll that does not follow yaw while a head turns upright (their correlation over a clip),
/// the frame-to-frame change of yaw on a still head (the first `stillFrames` frames of a clip),
/// the fit's reprojection error, and the cost of one estimate. Faces the tracker judges not upright
/// (`FaceUprightness`; the CNN stages run when their model is installed) are counted and left out,
/// as the pipeline leaves them out.
enum HeadPoseBenchmark {
    struct Poses {
        var yaw: [Double] = [], pitch: [Double] = [], roll: [Double] = [], error: [Double] = [], tz: [Double] = []
        var microseconds: [Double] = []
    }

    static func run(inputs: [String], modelPath: String, stillFrames: Int) throws {
        let model = try LandmarkModel.shared(path: modelPath)
        let finding = FaceFinding(cnnModelPath: try CNNFaceDetector.resolvePath(nil))
        let models: [(String, FaceModel3D, Double)] = [
            ("six-point generic", .sixPoint, 90.0 / 450.0),  // model units → mm at a 90 mm biocular breadth
            ("68-point mean, rigid points", .rigid, 1),
        ]
        print("head pose: \(models.map(\.0).joined(separator: " vs ")), same landmarks, focal length = frame width")
        print(row(["input", "model", "frames", "pitch°", "yaw°", "roll°", "yaw p5…p95°", "r(roll,yaw)", "|Δyaw|°", "err px"]))
        for input in inputs {
            let (results, framesNotUpright, frames) = try measure(input, models: models, model: model, finding: finding)
            let name = (input as NSString).lastPathComponent
            for (index, entry) in models.enumerated() {
                let poses = results[index]
                guard !poses.yaw.isEmpty else { continue }
                // Frontal frames: the model's own |yaw| < 5° (all of a still image).
                let frontal = poses.yaw.indices.filter { abs(poses.yaw[$0]) < 5 || poses.yaw.count == 1 }
                let still = Array(poses.yaw.prefix(stillFrames))
                let jumps = zip(still, still.dropFirst()).map { abs($1 - $0) }
                let sortedYaw = poses.yaw.sorted()
                let range = poses.yaw.count > 10
                    ? "\(text(sortedYaw[sortedYaw.count * 5 / 100]))…\(text(sortedYaw[sortedYaw.count * 95 / 100]))" : "-"
                print(row([name, entry.0, "\(poses.yaw.count)", text(median(frontal.map { poses.pitch[$0] })),
                           text(median(frontal.map { poses.yaw[$0] })), text(median(frontal.map { poses.roll[$0] })), range,
                           poses.yaw.count > 10 ? text(correlation(poses.roll, poses.yaw), 2) : "-",
                           jumps.isEmpty ? "-" : text(median(jumps), 2), text(median(poses.error), 2)]))
            }
            print("  faces not upright (left out): \(framesNotUpright) of \(frames) frames"
                  + (finding.cnnModelPath == nil ? " (no CNN model: HOG stages only)" : ""))
            for (index, entry) in models.enumerated() where !results[index].tz.isEmpty {
                print(String(format: "  %@: distance (tz) median %.0f mm; one estimate median %.0f µs", entry.0 as NSString,
                             median(results[index].tz), median(results[index].microseconds)))
            }
        }
        print("(pitch, yaw, roll: medians over frontal frames, |yaw| < 5°; |Δyaw|: median change between the first "
              + "\(stillFrames) frames)")
    }

    /// Every tracked, upright face of `input` through each face model; the frames whose face was
    /// not upright, and all frames.
    static func measure(_ input: String, models: [(String, FaceModel3D, Double)], model: LandmarkModel,
                        finding: FaceFinding) throws -> (results: [Poses], framesNotUpright: Int, frames: Int) {
        let source = try VideoFileSource(path: input)
        let tracker = try FaceTracker(model: model, finding: finding)
        var framesNotUpright = 0, frames = 0
        let intrinsics = CameraIntrinsics(width: source.width, height: source.height)
        var results = models.map { _ in Poses() }
        var previous: [HeadPose?] = models.map { _ in nil }
        while let frame = try source.nextFrame() {
            frames += 1
            let found = try tracker.process(frame.image, timeSeconds: frame.timestampSeconds)
            if found != nil, tracker.uprightness?.isTrusted == false { framesNotUpright += 1 }
            guard let face = found, tracker.uprightness?.isTrusted != false else {
                previous = models.map { _ in nil }
                continue
            }
            for (index, entry) in models.enumerated() {
                let estimator = HeadPoseEstimator(model: entry.1, intrinsics: intrinsics)
                let start = DispatchTime.now().uptimeNanoseconds
                let pose = estimator.estimate(face.landmarks, previous: previous[index])
                results[index].microseconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
                previous[index] = pose
                results[index].yaw.append(pose.yawDegrees)
                results[index].pitch.append(pose.pitchDegrees)
                results[index].roll.append(pose.rollDegrees)
                results[index].error.append(pose.reprojectionErrorPixels)
                results[index].tz.append(pose.translation.z * entry.2)
            }
        }
        return (results, framesNotUpright, frames)
    }

    static func text(_ value: Double, _ decimals: Int = 1) -> String {
        value.isFinite ? String(format: "%.\(decimals)f", value) : "-"
    }

    /// One table row: the first two columns left-aligned, the others right-aligned.
    static func row(_ cells: [String]) -> String {
        cells.enumerated().map { index, cell in
            let width = index == 0 ? 24 : index == 1 ? 28 : 12
            let padding = String(repeating: " ", count: max(width - cell.count, 0))
            return index < 2 ? cell + padding : padding + cell
        }.joined(separator: " ")
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    static func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let n = Double(a.count)
        let ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for (x, y) in zip(a, b) {
            sab += (x - ma) * (y - mb)
            saa += (x - ma) * (x - ma)
            sbb += (y - mb) * (y - mb)
        }
        return sab / max((saa * sbb).squareRoot(), 1e-12)
    }
}
