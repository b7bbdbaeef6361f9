import Foundation
import GazeCapture
import GazeCore
import GazeModel
import GazeVision

/// Face acquisition: on every image (and every `videoStride`-th video frame) of the inputs, each
/// detector stage run on its own — whether it finds a face and what it costs — and the cascade.
enum DetectionBenchmark {
    struct Stage {
        var name: String
        var run: (GrayImage) throws -> [FaceBox]
        var found = 0
        var times: [Double] = []
    }

    static func run(inputs: [String], cnnModel: String?, videoStride: Int, slowStages: Bool) throws {
        var stages = try makeStages(cnnModel: cnnModel, slowStages: slowStages)
        var images = 0
        var foundByAny = 0
        var missed: [String] = []
        func measure(_ image: GrayImage, name: String) throws {
            images += 1
            var any = false
            for index in stages.indices {
                let start = DispatchTime.now().uptimeNanoseconds
                let faces = try stages[index].run(image)
                stages[index].times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                if !faces.isEmpty {
                    stages[index].found += 1
                    any = true
                }
            }
            if any { foundByAny += 1 } else { missed.append(name) }
        }
        for file in imageFiles(inputs) {
            let source = try VideoFileSource(path: file)
            while let frame = try source.nextFrame() {
                if frame.index % videoStride == 0 { try measure(frame.image, name: "\(file)#\(frame.index)") }
            }
        }
        print("face acquisition over \(images) images and frames")
        print("  stage                                    found      median ms   p95 ms")
        for stage in stages {
            print("  " + stage.name.padding(toLength: 38, withPad: " ", startingAt: 0)
                  + String(format: " %6.1f %%   %9.2f   %6.2f", 100 * Double(stage.found) / Double(max(images, 1)),
                           VisionBenchmark.median(stage.times), VisionBenchmark.percentile(stage.times, 0.95)))
        }
        print(String(format: "  any stage: %.1f %%", 100 * Double(foundByAny) / Double(max(images, 1))))
        for name in missed.prefix(20) { print("  missed by all: \(name)") }
    }

    /// The detector stages compared, cheapest first.
    static func makeStages(cnnModel: String?, slowStages: Bool) throws -> [Stage] {
        let hog = try FaceDetector()
        let equalizer = ContrastEqualizer()
        var stages: [Stage] = [
            Stage(name: "HOG, frame shrunk to ≤ 400 px wide", run: { image in
                let factor = max(1, Int((Double(image.width) / 400).rounded()))
                return try hog.detect(image.downscaled(by: factor))
            }),
            Stage(name: "HOG, full frame", run: { try hog.detect($0) }),
            Stage(name: "HOG, full frame, CLAHE", run: { try hog.detect(equalizer.apply($0)) }),
        ]
        if slowStages { stages.append(Stage(name: "HOG, frame doubled", run: { try hog.detect($0, upsample: true) })) }
        if let cnnModel {
            let cnn = try CNNFaceDetector(path: cnnModel)
            stages.append(Stage(name: "CNN, frame shrunk to ≤ 320 px wide", run: { image in
                let factor = max(1, Int((Double(image.width) / 320).rounded()))
                return try cnn.detect(image.downscaled(by: factor))
            }))
            if slowStages { stages.append(Stage(name: "CNN, full frame", run: { try cnn.detect($0) })) }
        }
        return stages
    }

    /// The image files named by `inputs`: each file itself, each folder's JPEG and PNG files (sorted).
    static func imageFiles(_ inputs: [String]) -> [String] {
        inputs.flatMap { input -> [String] in
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory)
            guard isDirectory.boolValue, let enumerator = FileManager.default.enumerator(atPath: input) else { return [input] }
            return enumerator.compactMap { $0 as? String }.filter { file in
                [".jpg", ".jpeg", ".png"].contains { file.lowercased().hasSuffix($0) }
            }.sorted().map { "\(input)/\($0)" }
        }
    }
}
