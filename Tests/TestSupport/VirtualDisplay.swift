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

    public func stop() {
        // Xvfb may ignore SIGTERM while a client holds it.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
