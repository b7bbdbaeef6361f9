import Foundation
import GazeModel
import JSONStream

// gazerec-bench: benchmarks printed as plain tables. Run through Scripts/bench-*.sh (release build).
let arguments = CommandLine.arguments.dropFirst()
let usage = """
    usage: gazerec-bench store <gazerec binary> <work folder>
           gazerec-bench vision <clip> <model>
           gazerec-bench calibration <clip> <model>
           gazerec-bench choice [--minimum-samples N] <exported calibration JSON>...
           gazerec-bench robustness <model> <clean image | video> <drawn copy>...
           gazerec-bench detection [--cnn MODEL] [--video-stride N] [--slow] <image folder | image | video>...
           gazerec-bench headpose <model> [--still-frames N] <image | video>...
           gazerec-bench headpose <model> --labels <labels.csv>
           gazerec-bench upright <model> <image folder | image>...
           gazerec-bench camera <width> <height> <jpeg>...
           gazerec-bench expressions <labelled folder> <model>
           gazerec-bench lsl <seconds> [<python with pylsl>]
    """
switch arguments.first {
case "store":
    guard arguments.count == 3 else { print(usage); exit(64) }
    let rest = Array(arguments.dropFirst())
    try StoreBenchmark.run(binary: rest[0], workDirectory: rest[1])
case "vision":
    guard arguments.count == 3 else { print(usage); exit(64) }
    let rest = Array(arguments.dropFirst())
    try VisionBenchmark.run(clip: rest[0], modelPath: rest[1])
case "calibration":
    guard arguments.count == 3 else { print(usage); exit(64) }
    let rest = Array(arguments.dropFirst())
    try CalibrationBenchmark.run(clip: rest[0], modelPath: rest[1])
case "choice":
    var rest = Array(arguments.dropFirst())
    var minimum = 8
    if rest.first == "--minimum-samples" {
        guard rest.count >= 2, let value = Int(rest[1]), value >= 1 else {
            FileHandle.standardError.write(Data("gazerec-bench choice: --minimum-samples takes a whole number of at least 1\n".utf8))
            exit(64)
        }
        minimum = value
        rest.removeFirst(2)
    }
    guard !rest.isEmpty else { print(usage); exit(64) }
    try ChoiceBenchmark.run(files: rest, minimumSamples: minimum)
case "robustness":
    let rest = Array(arguments.dropFirst())
    guard rest.count >= 3 else { print(usage); exit(64) }
    try RobustnessBenchmark.run(modelPath: rest[0], clean: rest[1], drawn: Array(rest.dropFirst(2)))
case "detection":
    var rest = Array(arguments.dropFirst())
    var cnn: String?
    var stride = 10
    var slow = false
    while let option = rest.first, option.hasPrefix("--") {
        if option == "--slow" {
            slow = true
            rest.removeFirst()
            continue
        }
        guard rest.count >= 2 else { break }
        if option == "--cnn" { cnn = rest[1] } else if option == "--video-stride" { stride = Int(rest[1]) ?? 10 } else { break }
        rest.removeFirst(2)
    }
    guard !rest.isEmpty else { print(usage); exit(64) }
    try DetectionBenchmark.run(inputs: rest, cnnModel: cnn, videoStride: stride, slowStages: slow)
case "headpose":
    var rest = Array(arguments.dropFirst())
    guard !rest.isEmpty else { print(usage); exit(64) }
    let modelPath = rest.removeFirst()
    if rest.first == "--labels", rest.count == 2 {
        try HeadPoseBenchmark.runLabelled(labels: rest[1], modelPath: modelPath)
        exit(0)
    }
    var still = 50
    if rest.first == "--still-frames", rest.count >= 2 {
        still = Int(rest[1]) ?? 50
        rest.removeFirst(2)
    }
    guard !rest.isEmpty else { print(usage); exit(64) }
    try HeadPoseBenchmark.run(inputs: rest, modelPath: modelPath, stillFrames: still)
case "upright":
    let rest = Array(arguments.dropFirst())
    guard rest.count >= 2 else { print(usage); exit(64) }
    try UprightBenchmark.run(inputs: Array(rest.dropFirst()), modelPath: rest[0])
case "expressions":
    guard arguments.count == 3 else { print(usage); exit(64) }
    let rest = Array(arguments.dropFirst())
    try ExpressionBenchmark.run(folder: rest[0], modelPath: rest[1])
case "camera":
    let rest = Array(arguments.dropFirst())
    guard rest.count >= 3, let width = Int(rest[0]), let height = Int(rest[1]) else { print(usage); exit(64) }
    try CameraConversionBenchmark.run(jpegs: Array(rest.dropFirst(2)), width: width, height: height)
case "lsl":
    let rest = Array(arguments.dropFirst())
    guard (1...2).contains(rest.count), let seconds = Double(rest[0]), seconds > 0 else { print(usage); exit(64) }
    try LabStreamingBenchmark.run(seconds: seconds, python: rest.count == 2 ? rest[1] : nil)
default:
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(64)
}
