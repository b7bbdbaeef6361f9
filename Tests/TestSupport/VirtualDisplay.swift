import Foundation

/// An Xvfb X server of its own for a test that shows something (the stimulus presenter), stopped by `stop()`.
public final class VirtualDisplay {
    /// The display's name, e.g. ":57".
    public let name: String
    private let process: Process

    /// Why tests that need a display and mpv cannot run here, nil when they can.
    public static var missingReason: String? {
        for program in ["Xvfb", "mpv", "ffmpeg"] where !FileManager.default.isExecutableFile(atPath: "/usr/bin/\(program)") {
            return "/usr/bin/\(program) is not installed (Scripts/setup-system.sh installs mpv, xvfb and ffmpeg)"
        }
        return nil
    }

    /// The name of an X display no server listens on (no socket, no lock file), from :4321 on.
    public static func unusedName() -> String {
        var number = 4321
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") || FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") {
            number += 1
        }
        return ":\(number)"
    }

    /// Starts Xvfb on the first free display number from 60 with one screen of `width`×`height`×24.
    public init(width: Int, height: Int) throws {
        var number = 60 + Int(getpid() % 200)
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") || FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") {
            number += 1
        }
        name = ":\(number)"
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        process.arguments = [name, "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") && Date() < deadline && process.isRunning {
            usleep(20_000)
        }
    }

    /// The screen's pixels now, as packed RGB rows (FFmpeg's x11grab).
    public func grab(width: Int, height: Int) throws -> [UInt8] {
        let result = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "x11grab", "-video_size", "\(width)x\(height)",
                                                              "-i", name, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        return [UInt8](result.stdoutData)
    }

    /// Where a screenshot (packed RGB rows, `screenWidth` wide) does not show a picture with a red
    /// border exactly inside the rectangle: the background (grey 128, or black: mpv 0.35's
    /// `--background` does not colour the bars) just outside each side edge, red just inside, within 1 px.
    public static func edgeProblems(_ screen: [UInt8], screenWidth: Int, screenHeight: Int,
                                    x: Double, y: Double, width: Double, height: Double) -> [String] {
        guard screen.count == screenWidth * screenHeight * 3 else { return ["the grab holds \(screen.count) bytes"] }
        func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            let i = (y * screenWidth + x) * 3
            return (Int(screen[i]), Int(screen[i + 1]), Int(screen[i + 2]))
        }
        func background(_ p: (Int, Int, Int)) -> Bool {
            (abs(p.0 - 128) <= 3 && abs(p.1 - 128) <= 3 && abs(p.2 - 128) <= 3) || (p.0 <= 3 && p.1 <= 3 && p.2 <= 3)
        }
        func red(_ p: (Int, Int, Int)) -> Bool { p.0 > 180 && p.1 < 80 && p.2 < 80 }
        let left = Int(x.rounded()), right = Int((x + width).rounded())
        var problems: [String] = []
        for row in stride(from: Int(y) + 20, to: Int(y + height) - 20, by: 50) {
            if left >= 2, !background(pixel(left - 2, row)) { problems.append("left of the rectangle at y \(row): \(pixel(left - 2, row))") }
            if right + 1 < screenWidth, !background(pixel(right + 1, row)) { problems.append("right of it at y \(row): \(pixel(right + 1, row))") }
            if !red(pixel(left + 1, row)) || !red(pixel(right - 2, row)) {
                problems.append("inside its edges at y \(row): \(pixel(left + 1, row)) \(pixel(right - 2, row))")
            }
        }
        return problems
    }

    public func stop() {
        // Xvfb may ignore SIGTERM while a client holds it.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
