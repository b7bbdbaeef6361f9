import FaceExpression
import Foundation
import GazeCapture
import GazeCore
import GazeModel
import GazeVision

/// Expression probabilities on labelled faces: accuracy, a confusion matrix, the model's cost per
/// frame, and how the smile shape agrees with the model's happy probability.
///
/// The folder's layout (docs/Expressions.md): `FOLDER/<expression>/<image or clip>` labels every
/// frame of a file with that expression; `FOLDER/labels.csv` (`file,first,last,expression`, frame
/// numbers from 0, inclusive; `file` relative to FOLDER) labels ranges of frames of other files.
/// Frames of a listed clip outside its ranges still count for the cost and the smile agreement.
enum ExpressionBenchmark {
    /// One file to run, with its labelled frame ranges (nil range: every frame).
    struct Input {
        var path: String
        var labels: [(range: ClosedRange<Int>?, expression: ExpressionName)]

        func label(_ frame: Int) -> ExpressionName? {
            labels.first { $0.range?.contains(frame) ?? true }?.expression
        }
    }

    /// What the run measured.
    struct Tally {
        var confusion = [[Int]](repeating: [Int](repeating: 0, count: ExpressionName.allCases.count),
                                count: ExpressionName.allCases.count)
        var cropMicroseconds: [Double] = [], inferenceMicroseconds: [Double] = []
        var smiles: [Double] = [], happy: [Double] = []
        var frames = 0, faces = 0
    }

    static func run(folder: String, modelPath: String) throws {
        let classifier = try ExpressionClassifier()
        let model = try LandmarkModel.shared(path: modelPath)
        let inputs = try self.inputs(folder)
        print("expressions: \(inputs.count) files in \(folder), ONNX Runtime \(classifier.runtimeVersion), one thread")
        var tally = Tally()
        for input in inputs {
            try measure(input, classifier: classifier, model: model, into: &tally)
        }
        report(tally)
    }

    /// The labelled files of `folder` (both layouts).
    static func inputs(_ folder: String) throws -> [Input] {
        let manager = FileManager.default
        var inputs: [Input] = []
        for name in try manager.contentsOfDirectory(atPath: folder).sorted() {
            guard let expression = ExpressionName(rawValue: name) else { continue }
            for file in try manager.contentsOfDirectory(atPath: folder + "/" + name).sorted() where !file.hasPrefix(".") {
                inputs.append(Input(path: "\(folder)/\(name)/\(file)", labels: [(nil, expression)]))
            }
        }
        let csv = folder + "/labels.csv"
        guard manager.fileExists(atPath: csv) else { return inputs }
        var ranges: [String: Input] = [:]
        for (number, line) in try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").enumerated() {
            let cells = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4, let first = Int(cells[1]), let last = Int(cells[2]), first <= last,
                  let expression = ExpressionName(rawValue: cells[3]) else {
                if number == 0 { continue }  // a header
                throw BenchmarkError.badLabel(file: csv, line: number + 1)
            }
            ranges[cells[0], default: Input(path: folder + "/" + cells[0], labels: [])].labels.append((first...last, expression))
        }
        return inputs + ranges.keys.sorted().map { ranges[$0]! }
    }

    /// Runs one file's frames through the pipeline, the smile shape and the model.
    static func measure(_ input: Input, classifier: ExpressionClassifier, model: LandmarkModel, into tally: inout Tally) throws {
        let source = try VideoFileSource(path: input.path)
        let pipeline = try FramePipeline(model: model, width: source.width, height: source.height)
        var rest = BlendShapeRest()
        while let frame = try source.nextFrame() {
            tally.frames += 1
            let (features, _) = try pipeline.process(frame)
            rest.observe(features)
            guard let landmarks = features.face?.landmarks else { continue }
            tally.faces += 1
            var start = DispatchTime.now().uptimeNanoseconds
            let crop = FaceCrop(image: frame.image, landmarks: landmarks)
            tally.cropMicroseconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
            start = DispatchTime.now().uptimeNanoseconds
            let probabilities = try classifier.probabilities(crop)
            tally.inferenceMicroseconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
            let smile = BlendShapeEstimator.values([.mouthSmileLeft, .mouthSmileRight], features, rest: rest).map(\.1)
            if smile.count == 2 {
                tally.smiles.append((smile[0] + smile[1]) / 2)
                tally.happy.append(probabilities[.happy])
            }
            if let label = input.label(frame.index) {
                let truth = ExpressionName.allCases.firstIndex(of: label)!
                tally.confusion[truth][ExpressionName.allCases.firstIndex(of: probabilities.dominant)!] += 1
            }
        }
    }

    static func report(_ tally: Tally) {
        let names = ExpressionName.allCases
        let labelled = tally.confusion.joined().reduce(0, +)
        let right = names.indices.map { tally.confusion[$0][$0] }.reduce(0, +)
        print("frames \(tally.frames), with a face \(tally.faces), labelled \(labelled)")
        print(String(format: "accuracy %.3f (%d of %d)", labelled > 0 ? Double(right) / Double(labelled) : .nan, right, labelled))
        print("confusion (rows: label, columns: the model's most probable expression)")
        print(pad("", 10) + names.map { pad($0.rawValue, 9) }.joined())
        for (index, name) in names.enumerated() where tally.confusion[index].reduce(0, +) > 0 {
            print(pad(name.rawValue, 10) + tally.confusion[index].map { pad("\($0)", 9) }.joined())
        }
        print(String(format: "cost per face: crop median %.0f µs, model median %.0f µs (p90 %.0f µs)",
                     HeadPoseBenchmark.median(tally.cropMicroseconds), HeadPoseBenchmark.median(tally.inferenceMicroseconds),
                     percentile(tally.inferenceMicroseconds, 0.9)))
        guard tally.smiles.count > 1 else { return }
        let both = zip(tally.smiles, tally.happy).filter { ($0 >= 0.5) == ($1 >= 0.5) }.count
        print(String(format: "smile shape (mean of mouthSmile_L, _R) vs happy probability over %d faces: r = %.2f, "
                     + "agree on ≥ 0.5 in %.1f %%; smile ≥ 0.5 in %d, happy ≥ 0.5 in %d",
                     tally.smiles.count, HeadPoseBenchmark.correlation(tally.smiles, tally.happy),
                     100 * Double(both) / Double(tally.smiles.count), tally.smiles.filter { $0 >= 0.5 }.count,
                     tally.happy.filter { $0 >= 0.5 }.count))
    }

    static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(width - text.count, 0)) + text
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(fraction * Double(sorted.count)))]
    }
}

/// A benchmark input the benchmark cannot read.
enum BenchmarkError: Error, CustomStringConvertible {
    case badLabel(file: String, line: Int)

    var description: String {
        switch self {
        case let .badLabel(file, line):
            "\(file) line \(line): expected file,first,last,expression with an expression among "
                + ExpressionName.allCases.map(\.rawValue).joined(separator: ", ")
        }
    }
}
