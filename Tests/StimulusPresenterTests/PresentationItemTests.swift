import Foundation
import GazeModel
@testable import StimulusPresenter
import Testing
import TestSupport

/// Items and playlists as the researcher names them, checked before anything is recorded.
@Suite struct PresentationItemTests {
    static let clip = Fixtures.path("video/cap13_blinks_20s.mp4")

    @Test("a playlist gives videos, images and blanks with their seconds and labels; relative paths from its folder")
    func playlist() throws {
        guard Fixtures.available else { return }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let image = folder.path("face.png")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=red:s=64x48", "-frames:v", "1", image])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        let list = folder.path("study.txt")
        try """
            # the study
            "\(Self.clip)" 3 the first clip
            face.png
            blank 2
            face.png 1.5 face again

            """.write(toFile: list, atomically: true, encoding: .utf8)
        let items = try PresentationItem.items(arguments: [list, Self.clip], imageSeconds: 4)
        #expect(items == [
            PresentationItem(kind: .video, path: Self.clip, label: "the first clip", seconds: 3),
            PresentationItem(kind: .image, path: image, label: "face", seconds: 4),
            PresentationItem(kind: .blank, path: nil, label: "blank", seconds: 2),
            PresentationItem(kind: .image, path: image, label: "face again", seconds: 1.5),
            PresentationItem(kind: .video, path: Self.clip, label: "cap13_blinks_20s", seconds: nil),
        ])
    }

    @Test("a missing file, a file FFmpeg cannot read, an empty playlist and a bad line are refused with where and why")
    func refusals() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(throws: PresenterError.unreadableItem(path: folder.path("none.mp4"), reason: "no such file")) {
            try PresentationItem.items(arguments: [folder.path("none.mp4")], imageSeconds: 5)
        }
        let text = folder.path("notes.mp4")
        try "not a video".write(toFile: text, atomically: true, encoding: .utf8)
        #expect { try PresentationItem.items(arguments: [text], imageSeconds: 5) } throws: { error in
            guard case .unplayableItem(let path, _)? = error as? PresenterError else { return false }
            return path == text
        }
        let empty = folder.path("empty.txt")
        try "# nothing yet\n\n".write(toFile: empty, atomically: true, encoding: .utf8)
        #expect(throws: PresenterError.emptyPlaylist(path: empty)) { try PresentationItem.items(arguments: [empty], imageSeconds: 5) }
        let bad = folder.path("bad.txt")
        try "blank\n".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(throws: PresenterError.badPlaylistLine(path: bad, line: 1, reason: "'blank' needs its seconds, e.g. 'blank 2'")) {
            try PresentationItem.items(arguments: [bad], imageSeconds: 5)
        }
        try "blank -2\n".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(throws: PresenterError.badPlaylistLine(path: bad, line: 1, reason: "-2 is not a positive number of seconds")) {
            try PresentationItem.items(arguments: [bad], imageSeconds: 5)
        }
        // A missing file on a playlist's line is told as FILE:LINE: why; a playlist on a line cannot nest.
        try "blank 1\nnone.mp4 2\n".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(throws: PresenterError.badPlaylistLine(path: bad, line: 2,
                                                       reason: "cannot read the stimulus \(folder.path("none.mp4")): no such file")) {
            try PresentationItem.items(arguments: [bad], imageSeconds: 5)
        }
        try "blank 1\n\nempty.txt\n".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(throws: PresenterError.badPlaylistLine(path: bad, line: 3, reason: "empty.txt is a playlist, and playlists cannot "
                                                       + "nest: list its items here instead")) {
            try PresentationItem.items(arguments: [bad], imageSeconds: 5)
        }
        // A file FFmpeg cannot read: one sentence about it, not the camera input's advice inside it.
        do {
            _ = try PresentationItem.items(arguments: [text], imageSeconds: 5)
        } catch {
            #expect(!"\(error)".contains(").).") && !"\(error)".contains("Give a video file FFmpeg can read"), "\(error)")
        }
    }

    @Test("no display and no mpv are told before anything starts, naming Debian's package")
    func environmentChecks() {
        #expect(throws: PresenterError.noDisplay) { try PresenterChecks.check(environment: ["PATH": "/usr/bin"]) }
        #expect(throws: PresenterError.playerMissing) {
            try PresenterChecks.check(environment: ["DISPLAY": ":0", "PATH": "/nonexistent"])
        }
        #expect(PresenterError.playerMissing.description.contains("package mpv"))
        #expect(PresenterChecks.screenMismatch(display: (1920, 1080), screen: (1920, 1080)) == nil)
        #expect(PresenterChecks.screenMismatch(display: (1280, 720), screen: (1920, 1080))?.contains("1280x720") == true)
    }
}
