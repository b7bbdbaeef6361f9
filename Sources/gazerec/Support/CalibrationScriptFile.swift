import ArgumentParser
import Foundation
import GazeCalibration

/// A target script as `calibrate` and `validate` take it: a file or stdin, its screen checked against `--screen`.
extension CalibrationScript {
    /// A script file, or stdin for `-`.
    static func read(_ path: String) throws -> CalibrationScript {
        if path == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            return try CalibrationScript(text: String(decoding: data, as: UTF8.self), file: "<stdin>")
        }
        return try CalibrationScript(path: path)
    }

    /// The screen size: the script's `screen` line and `--screen`, which must agree when both are given.
    func screen(agreeingWith option: Size2D?) throws -> Size2D {
        let fromScript = screenWidth.map { Size2D(width: Int($0), height: Int(screenHeight!)) }
        if let option, let fromScript, option.width != fromScript.width || option.height != fromScript.height {
            throw UsageError(message: "--screen \(option.width)x\(option.height) disagrees with the script's "
                             + "'screen \(fromScript.width)x\(fromScript.height)'. Give one, or make them agree.")
        }
        guard let size = option ?? fromScript else {
            throw UsageError(message: "a scripted run needs the screen size: give --screen WxH or a "
                             + "'screen WxH' line in the script.")
        }
        return size
    }
}
