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

    /// Throws `displayUnavailable` when DISPLAY is set but no X server can be opened there: mpv would
    /// otherwise fall back to a video output on no screen (SDL's off-screen window) and the items
    /// would be recorded as shown; and `noSuchScreen` when `screenIndex` is past the display's
    /// screens (Xinerama's, as mpv counts them; one without Xinerama), where mpv would show on
    /// another. The display is opened with libX11 (loaded as mpv loads it); without libX11 the
    /// player's own check remains (`StimulusPresenter.launch`). A Wayland-only session (WAYLAND_DISPLAY
    /// without DISPLAY) is left to the player.
    public static func checkDisplay(environment: [String: String] = ProcessInfo.processInfo.environment, screenIndex: Int? = nil) throws {
        guard let display = environment["DISPLAY"], !display.isEmpty else { return }
        guard let library = dlopen("libX11.so.6", RTLD_NOW | RTLD_LOCAL) else { return }
        defer { dlclose(library) }
        typealias Open = @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
        typealias Close = @convention(c) (OpaquePointer?) -> Int32
        guard let open = dlsym(library, "XOpenDisplay"), let close = dlsym(library, "XCloseDisplay") else { return }
        guard let connection = unsafeBitCast(open, to: Open.self)(display) else {
            throw PresenterError.displayUnavailable(display: display)
        }
        defer { _ = unsafeBitCast(close, to: Close.self)(connection) }
        if let screenIndex, let count = screenCount(connection, x11: library), screenIndex >= count {
            throw PresenterError.noSuchScreen(index: screenIndex, count: count, display: display)
        }
    }

    /// The display's screens as mpv counts them: Xinerama's when it is active, else one; nil when
    /// libXinerama cannot be loaded (it stays loaded).
    private static func screenCount(_ connection: OpaquePointer, x11: UnsafeMutableRawPointer) -> Int? {
        // Never closed: Xinerama hooks itself into the display, which calls it when it closes.
        guard let library = dlopen("libXinerama.so.1", RTLD_NOW | RTLD_LOCAL) else { return nil }
        typealias IsActive = @convention(c) (OpaquePointer?) -> Int32
        typealias Query = @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>?) -> UnsafeMutableRawPointer?
        typealias Free = @convention(c) (UnsafeMutableRawPointer?) -> Int32
        guard let isActive = dlsym(library, "XineramaIsActive"), let query = dlsym(library, "XineramaQueryScreens"),
              let free = dlsym(x11, "XFree") else { return nil }
        guard unsafeBitCast(isActive, to: IsActive.self)(connection) != 0 else { return 1 }
        var count: Int32 = 0
        let screens = unsafeBitCast(query, to: Query.self)(connection, &count)
        if let screens { _ = unsafeBitCast(free, to: Free.self)(screens) }
        return max(1, Int(count))
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
    /// session's screen (points: the applied calibration's when `calibrated`, else the one given):
    /// gaze is mapped to that screen, so the stimulus's place in points is scaled by the difference;
    /// nil when they agree.
    public static func screenMismatch(display: (width: Int, height: Int), screen: (width: Double, height: Double),
                                      calibrated: Bool = true) -> String? {
        guard Double(display.width) != screen.width || Double(display.height) != screen.height else { return nil }
        let sizes = "the display is \(display.width)x\(display.height) pixels but the session's screen "
            + "(\(calibrated ? "the calibration's" : "the one given")) is \(Int(screen.width))x\(Int(screen.height)) points: "
            + "the stimulus's place is scaled to the session's screen; "
        return sizes + (calibrated ? "if this is not the screen that was calibrated, calibrate on this display"
            : "if this is not the screen's size, give the display's")
    }
}
