import Foundation

/// What the presenter shows and where.
public struct PresenterSettings: Sendable {
    public var items: [PresentationItem]
    /// The display (0-based, as mpv's `--screen` counts them) shown on full screen; nil: mpv's default.
    public var screenIndex: Int?
    /// The session's screen in screen points: the display's pixels are scaled to it (nil: points are pixels).
    public var screenPoints: (width: Double, height: Double)?
    /// The player's program (found on PATH when it has no slash).
    public var playerProgram = "mpv"
    /// The X display to show on (the player's DISPLAY); nil: this process's own.
    public var display: String?
    /// How long to wait for the player's window and control socket.
    public var startTimeoutSeconds = 10.0

    public init(items: [PresentationItem], screenIndex: Int? = nil, screenPoints: (width: Double, height: Double)? = nil) {
        self.items = items
        self.screenIndex = screenIndex
        self.screenPoints = screenPoints
    }

    /// The grey of the background, the letterbox bars and a blank screen (mid grey, sRGB 128).
    public static let greyHex = "808080"

    /// mpv's arguments: full screen on the chosen display (and a borderless window of the screen's
    /// size at its origin, for an X server without a window manager, where full screen is not granted), no on-screen display or controller, the grey
    /// background, each file closed at its end (keep-open off), the keys of `inputConfiguration` only,
    /// exact seeks, no user configuration (so a researcher's mpv.conf cannot change what is shown).
    ///
    /// The video outputs are the window system's only (`windowSystemOptions`): left to choose, mpv
    /// falls back to outputs on no screen the participant sees (SDL's off-screen window, the
    /// console's KMS) when the display cannot be opened, and the items would be recorded as shown.
    func playerArguments(folder: String, onX11: Bool) -> [String] {
        var options: [(String, String?)] = [
            ("idle", "yes"), ("force-window", "yes"), ("fullscreen", nil), ("geometry", "100%x100%+0+0"), ("no-border", nil),
            ("no-config", nil), ("no-terminal", nil), ("no-osc", nil), ("osd-level", "0"), ("no-osd-bar", nil),
            ("keep-open", "no"), ("background", "#\(Self.greyHex)"), ("cursor-autohide", "always"),
            ("no-input-default-bindings", nil), ("input-conf", "\(folder)/input.conf"), ("input-ipc-server", "\(folder)/mpv.sock"),
            ("hr-seek", "yes"), ("log-file", "\(folder)/mpv.log"), ("title", "Stimulus (gazerec)"), ("no-resume-playback", nil),
        ]
        options += Self.windowSystemOptions(onX11: onX11).map { ($0.0, $0.1) }
        if let screenIndex { options += [("screen", "\(screenIndex)"), ("fs-screen", "\(screenIndex)")] }
        // mpv's options are written "--name=value"; the names here are mpv's, not gazerec's.
        return options.map { name, value in "--" + name + (value.map { "=" + $0 } ?? "") }
    }

    /// mpv's video outputs and GPU context for the window system shown on: X11's (`DISPLAY`) or
    /// Wayland's; SDL's output is kept, its driver set to the same window system (`sdlDriver`).
    static func windowSystemOptions(onX11: Bool) -> [(String, String)] {
        onX11 ? [("vo", x11Outputs.joined(separator: ",")), ("gpu-context", "x11egl")]
            : [("vo", waylandOutputs.joined(separator: ",")), ("gpu-context", "wayland")]
    }

    /// The video outputs that draw a window on an X display, and on a Wayland one, in mpv's order.
    static let x11Outputs = ["gpu", "gpu-next", "xv", "sdl", "x11"]
    static let waylandOutputs = ["gpu", "gpu-next", "wlshm", "dmabuf-wayland", "sdl"]

    /// SDL's video driver for the window system (its own fallback is an off-screen window).
    static func sdlDriver(onX11: Bool) -> String { onX11 ? "x11" : "wayland" }

    /// The player's only keys: Esc and q end the presentation (mpv exits with status 4).
    static let inputConfiguration = "ESC quit 4\nq quit 4\nQ quit 4\n"

    /// The source of a grey screen of `width`×`height` pixels with a black fixation cross at its
    /// centre (40 px arms, 4 px thick) for `seconds` (forever when nil), made by FFmpeg's lavfi
    /// inside the player: no file is written, and it is shown through the same path as a video, so
    /// its onset and offset come from the same events.
    static func blankSource(width: Int, height: Int, seconds: Double?) -> String {
        let duration = seconds.map { ":d=\($0)" } ?? ""
        return "av://lavfi:color=c=0x\(greyHex):s=\(width)x\(height):r=30\(duration),"
            + "drawbox=x=iw/2-20:y=ih/2-2:w=40:h=4:color=black:t=fill,"
            + "drawbox=x=iw/2-2:y=ih/2-20:w=4:h=40:color=black:t=fill"
    }

    /// The grey standby screen shown from the player's start until the first item (no cross).
    static func standbySource() -> String { "av://lavfi:color=c=0x\(greyHex):s=16x16:r=10" }
}
