import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import GazeModel
import JSONStream

/// Draws the calibration procedure on a terminal that stands for the screen: the instruction page,
/// each target with its progress, pauses, retries and failures.
struct CalibrationView {
    let columns: Int
    let rows: Int
    let screenWidth: Double
    let screenHeight: Double
    /// Where the screen size came from, said on the instruction page so a wrong one is caught.
    var screenSource = ""

    /// The cell a screen point falls in (clamped to the grid).
    func cell(_ point: Point2) -> (column: Int, row: Int) {
        (min(max(Int(point.x / screenWidth * Double(columns)), 0), columns - 1),
         min(max(Int(point.y / screenHeight * Double(rows)), 0), rows - 1))
    }

    /// Where a target is really drawn: the centre of its cell, in screen points.
    func drawnPosition(_ point: Point2) -> Point2 {
        let (column, row) = cell(point)
        return Point2((Double(column) + 0.5) * screenWidth / Double(columns),
                      (Double(row) + 0.5) * screenHeight / Double(rows))
    }

    /// The whole screen for the procedure's current state.
    func render(_ procedure: CalibrationProcedure) -> String {
        var out = "\u{1B}[H\u{1B}[2J"
        let calibrationCount = procedure.targets.filter { $0.kind == .calibration }.count
        let validationCount = procedure.targets.count - calibrationCount
        switch procedure.phase {
        case .instructions:
            let face = procedure.faceVisible ? "\u{1B}[1;32mface found\u{1B}[0m" : "\u{1B}[1;31mno face yet: sit in front of the camera\u{1B}[0m"
            out += centred([
                calibrationCount > 0 ? "\u{1B}[1mgazerec calibration\u{1B}[0m" : "\u{1B}[1mgazerec validation\u{1B}[0m",
                "",
                calibrationCount > 0
                    ? "\(calibrationCount) targets to calibrate, then \(validationCount) to measure the accuracy."
                    : "\(validationCount) targets to measure how accurate the calibration still is.",
                "Sit as you will during the recording and keep your head still.",
                "Look at each dot until its progress bar is full;",
                "the next one follows by itself.",
                "",
                "Camera: " + face,
                "Screen: \(Int(screenWidth))×\(Int(screenHeight)) points, from \(screenSource)",
                screenSource == "--screen" ? "" : "If that is not this screen's size, press Esc and give --screen WxH.",
                "",
                "\u{1B}[1mSpace\u{1B}[0m starts   \u{1B}[1mEsc\u{1B}[0m cancels",
            ])
        case .target(let index), .retry(let index, _):
            let target = procedure.targets[index]
            let (column, row) = cell(target.position)
            let colour = procedure.settling ? "\u{1B}[1;33m" : "\u{1B}[1;31m"
            out += move(row, column) + colour + "●" + "\u{1B}[0m"
            // The progress right under the target (above it on the last rows).
            let bar = progressBar(procedure.progress)
            let barRow = row + 1 < rows - 1 ? row + 1 : max(row - 1, 0)
            let barColumn = min(max(column - bar.count / 2, 0), max(columns - bar.count, 0))
            out += move(barRow, barColumn) + bar
            let number = target.kind == .calibration
                ? "calibration \(index + 1)/\(calibrationCount)"
                : "validation \(index - calibrationCount + 1)/\(validationCount)"
            var status = " \(number)  "
            if case .retry(_, let reason) = procedure.phase {
                status += "\u{1B}[1;31mtoo few samples: \(reason)\u{1B}[0m  Space shows it again  S skips it  Esc cancels"
            } else if procedure.faceLost {
                status += "\u{1B}[1;31mface lost: paused until the camera sees your face again\u{1B}[0m  Esc cancels"
            } else if procedure.settling {
                status += "look at the dot…  Esc cancels"
            } else {
                status += "keep looking at the dot  Esc cancels"
            }
            out += move(rows - 1, 0) + status
        case .failed(let reason):
            out += centred(["\u{1B}[1;31mThe calibration could not be fitted.\u{1B}[0m", "", reason, "",
                            "\u{1B}[1mSpace\u{1B}[0m starts over   \u{1B}[1mEsc\u{1B}[0m cancels"])
        case .finished, .aborted:
            break
        }
        return out
    }

    /// `[########    ]  62 %`
    func progressBar(_ progress: Double) -> String {
        let width = 10
        let filled = Int((progress * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
            + String(format: "%3d %%", Int((progress * 100).rounded(.down)))
    }

    /// Characters a line takes on screen (its SGR colour sequences take none).
    static func visibleLength(_ line: String) -> Int {
        var count = 0
        var inEscape = false
        for character in line {
            if inEscape {
                if character == "m" { inEscape = false }
            } else if character == "\u{1B}" {
                inEscape = true
            } else {
                count += 1
            }
        }
        return count
    }

    private func move(_ row: Int, _ column: Int) -> String { "\u{1B}[\(row + 1);\(column + 1)H" }

    private func centred(_ lines: [String]) -> String {
        let top = max((rows - lines.count) / 2, 0)
        var out = ""
        for (offset, line) in lines.enumerated() {
            out += move(top + offset, max((columns - Self.visibleLength(line)) / 2, 0)) + line
        }
        return out
    }
}
