import Foundation
import GazeCapture
import GazeCore
import GazeModel
import GazeVision

/// Head pose on real faces, every face model side by side on the very same landmarks: the
/// six-point generic model of early versions, the mean face's rigid points (`mean68-rigid-1`:
/// brows, nose, eye corners, mouth corners), its nose and eye corners (`mean68-nose-eyes-1`,
/// this version's), and the candidates for pitch (`models`). Each row also gives how far a smile
/// and a brow raise, applied to the face's own landmarks, move the model's pitch.
///
/// Without labels it reports what a right pose must show: a face looking into the camera near 0°
/// on every angle (the portraits; the frames of a clip whose yaw is under 5°), roll that does not
/// follow yaw while a head turns upright (their correlation over a clip), the frame-to-frame change
/// of yaw on a still head (the first `stillFrames` frames of a clip), pitch's and yaw's jitter (the
/// median over 25-frame windows of their standard deviation), the fit's reprojection error, and the
/// cost of one estimate. With labels (`runLabelled`) it reports the mean absolute error per axis.
/// Faces the tracker judges not upright (`FaceUprightness`; the CNN stages run when their model is
/// installed) are counted and left out, as the pipeline leaves them out.
enum HeadPoseBenchmark {
    struct Poses {
        var yaw: [Double] = [], pitch: [Double] = [], roll: [Double] = [], error: [Double] = [], tz: [Double] = []
        var microseconds: [Double] = []
        /// Per face: how far a smile and a brow raise move this model's pitch (degrees), and how far
        /// a nose 10 % longer does (another person's face: the model's sensitivity to the shape it assumes).
        var smileShift: [Double] = [], browShift: [Double] = [], noseShift: [Double] = []
    }

    static func run(inputs: [String], modelPath: String, stillFrames: Int) throws {
        let model = try LandmarkModel.shared(path: modelPath)
        let finding = FaceFinding(cnnModelPath: try CNNFaceDetector.resolvePath(nil))
        let models = Self.models
        print("head pose: \(models.map(\.name).joined(separator: " vs ")), same landmarks, focal length = frame width")
        print(row(["input", "model", "frames", "pitch°", "yaw°", "roll°", "yaw p5…p95°", "r(roll,yaw)", "|Δyaw|°",
                   "pitch SD°", "yaw SD°", "err px", "smile Δp max°", "brows Δp max°", "nose Δp max°"]))
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
                print(row([name, entry.name, "\(poses.yaw.count)", text(median(frontal.map { poses.pitch[$0] })),
                           text(median(frontal.map { poses.yaw[$0] })), text(median(frontal.map { poses.roll[$0] })), range,
                           poses.yaw.count > 10 ? text(correlation(poses.roll, poses.yaw), 2) : "-",
                           jumps.isEmpty ? "-" : text(median(jumps), 2), windowSD(poses.pitch), windowSD(poses.yaw),
                           text(median(poses.error), 2), text(poses.smileShift.max() ?? .nan, 2),
                           text(poses.browShift.max() ?? .nan, 2), text(poses.noseShift.max() ?? .nan, 2)]))
            }
            print("  faces not upright (left out): \(framesNotUpright) of \(frames) frames"
                  + (finding.cnnModelPath == nil ? " (no CNN model: HOG stages only)" : ""))
            for (index, entry) in models.enumerated() where !results[index].tz.isEmpty {
                print(String(format: "  %@: distance (tz) median %.0f mm; one estimate median %.0f µs", entry.name as NSString,
                             median(results[index].tz), median(results[index].microseconds)))
            }
        }
        print("(pitch, yaw, roll: medians over frontal frames, |yaw| < 5°; |Δyaw|: median change between the first "
              + "\(stillFrames) frames; SD: median over 25-frame windows of the standard deviation)")
    }

    /// A face model measured: the model the pose is fitted with, the factor from its units to
    /// millimetres and, for a two-term candidate, the model pitch is taken from instead.
    struct Candidate {
        var name: String
        var model: FaceModel3D
        var millimetres: Double = 1
        var pitchModel: FaceModel3D?

        /// The pose of `landmarks`: yaw, roll, translation and error from `model`, pitch from
        /// `pitchModel` when there is one.
        func estimate(_ landmarks: FaceLandmarks, intrinsics: CameraIntrinsics, previous: HeadPose?)
            -> (pose: HeadPose, pitchDegrees: Double) {
            let pose = HeadPoseEstimator(model: model, intrinsics: intrinsics).estimate(landmarks, previous: previous)
            guard let pitchModel else { return (pose, pose.pitchDegrees) }
            return (pose, HeadPoseEstimator(model: pitchModel, intrinsics: intrinsics).estimate(landmarks).pitchDegrees)
        }
    }

    /// The models compared: the shipped ones (`HeadPoseModelName`), then the candidates for pitch
    /// that keep the nose and eye corners. Round 3's: with the jaw line's top (points 0–1 and
    /// 15–16, beside the ears: far behind the nose, so a nod moves them against it, and no smile or
    /// brow raise does), and the two-term candidate that takes yaw and roll from the nose and eye
    /// corners and pitch from the rigid points. Round 4's: the nose and eye corners weighted four
    /// times against a few stable lower points (the jaw line's top, or its middle, 3–4 and 12–13),
    /// and two-term candidates taking pitch from the jaw-top fit (plain or weighted) while yaw and
    /// roll stay the nose and eye corners'. A weight is the point given that many times (the fit
    /// sums squared pixel errors).
    static let models: [Candidate] = [
        Candidate(name: "six-point generic", model: .sixPoint, millimetres: 90.0 / 450.0),  // units → mm at 90 mm breadth
        Candidate(name: "mean68-rigid-1", model: .rigid),
        Candidate(name: "mean68-nose-eyes-1", model: .noseAndEyeCorners),
        Candidate(name: "nose-eyes+jaw-top", model: withNoseAndEyes(weight: 1, [0, 1, 15, 16])),
        Candidate(name: "nose-eyes+jaw-0-2", model: withNoseAndEyes(weight: 1, [0, 1, 2, 14, 15, 16])),
        Candidate(name: "nose-eyes, rigid pitch", model: .noseAndEyeCorners, pitchModel: .rigid),
        Candidate(name: "nose-eyes×4+jaw-top", model: withNoseAndEyes(weight: 4, [0, 1, 15, 16])),
        Candidate(name: "nose-eyes×4+jaw-mid", model: withNoseAndEyes(weight: 4, [3, 4, 12, 13])),
        Candidate(name: "nose-eyes, jaw-top pitch", model: .noseAndEyeCorners, pitchModel: withNoseAndEyes(weight: 1, [0, 1, 15, 16])),
        Candidate(name: "nose-eyes, ×4 jaw-top pitch", model: .noseAndEyeCorners,
                  pitchModel: withNoseAndEyes(weight: 4, [0, 1, 15, 16])),
    ]

    /// The mean face's nose (27–35) and four eye corners, each `weight` times, and `others` once.
    static func withNoseAndEyes(weight: Int, _ others: [Int]) -> FaceModel3D {
        let noseAndEyes = [Int](27...35) + [36, 39, 42, 45]
        return FaceModel3D.meanShape.subset(Array(repeating: noseAndEyes, count: weight).flatMap { $0 } + others)
    }

    /// How far a smile (mouth corners 10 % of the eye-corner distance out, 21 % up: the
    /// astronaut's) and a brow raise (brows 10 % up) move each candidate's pitch on `landmarks`, in
    /// degrees (the protocol of the expression test, `HeadPoseOnFacesTests`), and how far a nose
    /// 10 % longer does (points 28–35 moved away from the bridge's top, 27, by a tenth of their
    /// distance from it): a face whose nose is not the mean face's, which a model that leans on the
    /// nose reads as a nod.
    static func expressionShifts(_ landmarks: FaceLandmarks,
                                 intrinsics: CameraIntrinsics) -> [(smile: Double, brows: Double, nose: Double)] {
        let eyes = landmarks[45].distance(to: landmarks[36])
        var smiling = landmarks, raised = landmarks, longNose = landmarks
        smiling.points[48] = smiling.points[48] + Point2(-0.10 * eyes, -0.21 * eyes)
        smiling.points[54] = smiling.points[54] + Point2(0.10 * eyes, -0.21 * eyes)
        for index in 17...26 { raised.points[index] = raised.points[index] + Point2(0, -0.10 * eyes) }
        for index in 28...35 { longNose.points[index] = landmarks[index] + (landmarks[index] - landmarks[27]) * 0.1 }
        return models.map { candidate in
            func shift(_ changed: FaceLandmarks, from pitch: Double) -> Double {
                abs(candidate.estimate(changed, intrinsics: intrinsics, previous: nil).pitchDegrees - pitch)
            }
            let pitch = candidate.estimate(landmarks, intrinsics: intrinsics, previous: nil).pitchDegrees
            return (shift(smiling, from: pitch), shift(raised, from: pitch), shift(longNose, from: pitch))
        }
    }

    /// Labelled faces: `labels` is a CSV file of `file,yaw,pitch,roll` rows (degrees in gazerec's
    /// signs, docs/ExportFormat.md; files relative to the CSV's folder, a header row allowed). Prints
    /// each model's mean absolute error per axis over the near-frontal faces (|yaw| and |pitch| up
    /// to 30° by their labels) and over all, and the faces without a face found.
    static func runLabelled(labels: String, modelPath: String) throws {
        let model = try LandmarkModel.shared(path: modelPath)
        let finding = FaceFinding(cnnModelPath: try CNNFaceDetector.resolvePath(nil))
        let folder = (labels as NSString).deletingLastPathComponent
        var errors = models.map { _ in (near: [[Double]](), all: [[Double]]()) }
        var missed = 0, rows = 0, flagged: [String] = []
        var shifts = models.map { _ in (smile: [Double](), brows: [Double](), nose: [Double]()) }
        for line in try String(contentsOfFile: labels, encoding: .utf8).split(whereSeparator: \.isNewline) {
            let cells = line.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, let yaw = Double(cells[1]), let pitch = Double(cells[2]), let roll = Double(cells[3]) else { continue }
            rows += 1
            let (results, notUpright, _) = try measure((folder as NSString).appendingPathComponent(cells[0]), models: models,
                                                       model: model, finding: finding)
            guard !results[0].yaw.isEmpty else {
                if notUpright > 0 { flagged.append("\(cells[0]) (yaw \(cells[1])°)") } else { missed += 1 }
                continue
            }
            for index in models.indices {
                let found = results[index]
                shifts[index].smile += found.smileShift
                shifts[index].brows += found.browShift
                shifts[index].nose += found.noseShift
                let error = [found.yaw[0] - yaw, found.pitch[0] - pitch, angleDifference(found.roll[0], roll)]
                errors[index].all.append(error)
                if abs(yaw) <= 30 && abs(pitch) <= 30 { errors[index].near.append(error) }
            }
        }
        print("labelled faces: \(rows), no face found: \(missed), flagged as not upright (not reported): \(flagged.count)"
              + (flagged.isEmpty ? "" : " — " + flagged.joined(separator: ", ")))
        print("mean absolute error yaw / pitch / roll, degrees (near-frontal also its mean signed error, the bias: "
              + "a model whose zero is not the labels'); then the largest pitch change a smile / a brow raise / a nose "
              + "10 % longer makes on these faces (mouth corners 10 % of the eye-corner distance out and 21 % up; brows 10 % up)")
        for (index, entry) in models.enumerated() {
            func mean(_ rows: [[Double]], _ value: (Double) -> Double) -> String {
                rows.isEmpty ? "-" : (0..<3).map { axis in text(rows.map { value($0[axis]) }.reduce(0, +) / Double(rows.count), 2) }
                    .joined(separator: " / ")
            }
            let (near, all) = errors[index]
            print("  \(entry.name): near-frontal (\(near.count)) \(mean(near, abs)) (bias \(mean(near) { $0 })); "
                  + "all (\(all.count)) \(mean(all, abs)); smile / brows / nose Δpitch "
                  + [shifts[index].smile, shifts[index].brows, shifts[index].nose].map { text($0.max() ?? .nan, 2) }
                    .joined(separator: " / "))
        }
    }

    /// a − b in degrees, wrapped into −180…180.
    static func angleDifference(_ a: Double, _ b: Double) -> Double {
        var d = (a - b).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 } else if d < -180 { d += 360 }
        return d
    }

    /// The median over 25-frame windows (every 5th frame a start) of the values' standard deviation:
    /// a still head's jitter, little touched by the turns between its still spells.
    static func windowSD(_ values: [Double]) -> String {
        guard values.count >= 25 else { return "-" }
        let deviations = stride(from: 0, through: values.count - 25, by: 5).map { start -> Double in
            let window = values[start..<(start + 25)]
            let mean = window.reduce(0, +) / 25
            return (window.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / 25).squareRoot()
        }
        return text(median(deviations), 2)
    }

    /// Every tracked, upright face of `input` through each face model; the frames whose face was
    /// not upright, and all frames.
    static func measure(_ input: String, models: [Candidate], model: LandmarkModel,
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
            let shifts = frames % 25 == 1 ? expressionShifts(face.landmarks, intrinsics: intrinsics) : []
            for (index, entry) in models.enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                let (pose, pitch) = entry.estimate(face.landmarks, intrinsics: intrinsics, previous: previous[index])
                results[index].microseconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
                previous[index] = pose
                results[index].yaw.append(pose.yawDegrees)
                results[index].pitch.append(pitch)
                results[index].roll.append(pose.rollDegrees)
                results[index].error.append(pose.reprojectionErrorPixels)
                results[index].tz.append(pose.translation.z * entry.millimetres)
                if !shifts.isEmpty {
                    results[index].smileShift.append(shifts[index].smile)
                    results[index].browShift.append(shifts[index].brows)
                    results[index].noseShift.append(shifts[index].nose)
                }
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
            let width = index == 0 ? 24 : index == 1 ? 20 : 11
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
