import Foundation
import GazeModel
import JSONStream

// gazerec-bench: benchmarks printed as plain tables. Run through Scripts/bench-*.sh (release build).
let arguments = CommandLine.arguments.dropFirst()
let usage = """
    usage: gazerec-bench store <gazerec binary> <work folder>
           gazerec-bench vision <clip> <model>
           gazerec-bench calibration <clip> <model>
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
default:
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(64)
}
