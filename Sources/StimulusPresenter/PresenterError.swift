/// Why the stimulus presenter cannot show its items: data and a sentence naming no command or flag.
public enum PresenterError: Error, Equatable, CustomStringConvertible {
    /// An item's file does not exist or cannot be read.
    case unreadableItem(path: String, reason: String)
    /// FFmpeg cannot decode an item's file as a video or an image.
    case unplayableItem(path: String, reason: String)
    /// A playlist holds no item.
    case emptyPlaylist(path: String)
    /// A playlist line that is not `PATH [SECONDS] [LABEL]` or `blank SECONDS`.
    case badPlaylistLine(path: String, line: Int, reason: String)
    /// A number of seconds that is not positive.
    case badSeconds(value: Double)
    /// Neither DISPLAY nor WAYLAND_DISPLAY is set: there is no screen to show on.
    case noDisplay
    /// DISPLAY names an X display that cannot be opened (no X server answers there, or it refuses this user).
    case displayUnavailable(display: String)
    /// The display asked for is past the X display's screens (0-based; `count` of them).
    case noSuchScreen(index: Int, count: Int, display: String)
    /// The mpv program is not on PATH.
    case playerMissing
    /// mpv did not start, or its control socket did not answer.
    case playerDidNotStart(reason: String)

    public var description: String {
        switch self {
        case let .unreadableItem(path, reason): "cannot read the stimulus \(path): \(reason)"
        case let .unplayableItem(path, reason):
            "cannot play the stimulus \(path): FFmpeg reads no video or image from it (\(reason)). Give a video or an image file."
        case let .emptyPlaylist(path): "the playlist \(path) holds no item: add one line per item (a file, or 'blank SECONDS')."
        case let .badPlaylistLine(path, line, reason): "\(path):\(line): \(reason)"
        case let .badSeconds(value): "\(value) is not a positive number of seconds to show an item for."
        case .noDisplay:
            "there is no display to present on: neither DISPLAY nor WAYLAND_DISPLAY is set. Run it in the desktop session "
                + "of the screen the participant sees (or under Xvfb for a test)."
        case let .displayUnavailable(display):
            "cannot open the X display \(display) to present on: no X server answers there, or it refuses this user. Run it in "
                + "the desktop session of the screen the participant sees, or set DISPLAY to that screen's display."
        case let .noSuchScreen(index, count, display):
            "there is no screen \(index) on the X display \(display): it has \(count) (numbered from 0 to \(count - 1)), "
                + "so the stimuli would be shown on another."
        case .playerMissing:
            "the stimulus player mpv is not installed: install Debian's package mpv (apt-get install mpv)."
        case let .playerDidNotStart(reason): "the stimulus player mpv did not start: \(reason)"
        }
    }
}
