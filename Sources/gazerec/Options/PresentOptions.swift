import ArgumentParser
import Foundation
import StimulusPresenter

/// `start --present`: the stimuli shown while recording, on which display, images for how long.
struct PresentOptions: ParsableArguments {
    @Option(parsing: .upToNextOption,
            help: ArgumentHelp("Show these full screen with mpv while recording, one after another, and end the recording when "
                               + "the last ends (or on Esc or q in the player): videos, images, and playlists (.txt or .playlist: "
                               + "one 'PATH [SECONDS] [LABEL]' or 'blank SECONDS' a line). Each showing is stored as a "
                               + "presentation (docs/Presenting.md).", valueName: "item"))
    var present: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("With --present, the display to show on (0-based, as mpv counts them).", valueName: "n"))
    var presentScreen: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --present, how long each image is shown, unless its playlist line gives its seconds (default 5).",
                               valueName: "seconds"))
    var imageSeconds: Double?

    func validate() throws {
        if present.isEmpty && (presentScreen != nil || imageSeconds != nil) {
            throw ValidationError("--\(presentScreen != nil ? "present-screen" : "image-seconds") applies to --present only.")
        }
        if let presentScreen, presentScreen < 0 { throw ValidationError("--present-screen must be 0 or more.") }
        if let imageSeconds, !(imageSeconds > 0 && imageSeconds.isFinite) {
            throw ValidationError("--image-seconds must be a positive number of seconds.")
        }
    }

    /// The presenter's settings, every item checked (exists, FFmpeg reads it) with a display and
    /// mpv present; nil without --present. A bad item fails before anything is recorded.
    func settings() throws -> PresenterSettings? {
        guard !present.isEmpty else { return nil }
        try PresenterChecks.check()
        let items = try PresentationItem.items(arguments: present, imageSeconds: imageSeconds ?? 5)
        try PresenterChecks.checkDisplay(screenIndex: presentScreen)
        return PresenterSettings(items: items, screenIndex: presentScreen)
    }
}

extension PresenterError: RuntimeFailure {}
