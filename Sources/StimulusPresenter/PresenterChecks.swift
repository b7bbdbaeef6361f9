import Foundation

/// What must hold before a presentation is recorded: a display to show on and the player installed.
public enum PresenterChecks {
    /// Throws `noDisplay` when neither DISPLAY nor WAYLAND_DISPLAY is set in `environment`, and
    /// `playerMissing` when `program` is not found.
    public static func check(environment: [String: String] = ProcessInfo.processInfo.environment, program: String = "mpv") throws {
        let display = environment["DISPLAY"] ?? "", wayland = environment["WAYLAND_DISPLAY"] ?? ""
        guard !display.isEmpty || !wayland.isEmpty else { throw PresenterError.noDisplay }
        guard playerPath(program, environment: environment) != nil else { throw PresenterError.playerMissing }
    }

    /// The executable `program` names: itself when it has a slash, else the first on PATH.
    static func playerPath(_ program: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if program.contains("/") { return access(program, X_OK) == 0 ? program : nil }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = String(folder) + "/" + program
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// A warning when the display's size (pixels, as the player measured it) differs from the
    /// session's screen (points, the applied calibration's): gaze is mapped to that screen, so the
    /// stimulus's place in points is scaled by the difference; nil when they agree.
    public static func screenMismatch(display: (width: Int, height: Int), screen: (width: Double, height: Double)) -> String? {
        guard Double(display.width) != screen.width || Double(display.height) != screen.height else { return nil }
        return "the display is \(display.width)x\(display.height) pixels but the session's screen (the calibration's) is "
            + "\(Int(screen.width))x\(Int(screen.height)) points: the stimulus's place is scaled to the session's screen; "
            + "if this is not the screen that was calibrated, calibrate on this display"
    }
}
