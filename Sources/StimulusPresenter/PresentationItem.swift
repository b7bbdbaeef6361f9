import Foundation
import GazeCapture
import GazeModel

/// One thing to show: a video, an image for a number of seconds, or a grey screen with a fixation
/// cross for a number of seconds. Made by `PresentationItem.items(arguments:imageSeconds:)` from
/// what the researcher names: files and playlists.
public struct PresentationItem: Sendable, Equatable {
    public var kind: Presentation.Kind
    /// The file to show; nil for a blank screen.
    public var path: String?
    /// The label a presentation is stored under (the playlist's, else the file's name without extension).
    public var label: String
    /// How long to show it: an image's or a blank's seconds; for a video a limit (nil: to its end).
    public var seconds: Double?

    public init(kind: Presentation.Kind, path: String?, label: String, seconds: Double?) {
        self.kind = kind
        self.path = path
        self.label = label
        self.seconds = seconds
    }

    /// A name ending in one of these is a playlist: one item a line.
    public static let playlistExtensions = ["txt", "playlist"]

    /// The items `arguments` name in order: each a video, an image (shown `imageSeconds`) or a
    /// playlist (`Playlist`) expanded in place. Every file is checked to exist and to be decodable by
    /// FFmpeg (a video or a still image), so a bad item is reported before anything is recorded.
    public static func items(arguments: [String], imageSeconds: Double) throws -> [PresentationItem] {
        guard imageSeconds > 0, imageSeconds.isFinite else { throw PresenterError.badSeconds(value: imageSeconds) }
        var items: [PresentationItem] = []
        for argument in arguments {
            if playlistExtensions.contains((argument as NSString).pathExtension.lowercased()) {
                items += try Playlist.read(path: argument, imageSeconds: imageSeconds)
            } else {
                items.append(try file(argument, label: nil, seconds: nil, imageSeconds: imageSeconds))
            }
        }
        return items
    }

    /// A file's item, probed with FFmpeg: a video (more than one frame and a duration) or an image.
    static func file(_ path: String, label: String?, seconds: Double?, imageSeconds: Double) throws -> PresentationItem {
        guard FileManager.default.isReadableFile(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "it cannot be read" : "no such file"
            throw PresenterError.unreadableItem(path: path, reason: reason)
        }
        let source: VideoFileSource
        do {
            source = try VideoFileSource(path: path)
        } catch CaptureError.cannotOpenVideo(_, let reason) {
            // FFmpeg's reason alone: the capture error's own advice is about a camera's video.
            throw PresenterError.unplayableItem(path: path, reason: reason)
        } catch {
            throw PresenterError.unplayableItem(path: path, reason: "\(error)")
        }
        let isVideo = source.durationSeconds > 0 && source.frameCountHint != 1 && source.framesPerSecond > 0
        let name = label ?? ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        return PresentationItem(kind: isVideo ? .video : .image, path: path, label: name,
                                seconds: isVideo ? seconds : (seconds ?? imageSeconds))
    }
}

/// A playlist file: one item a line, `PATH [SECONDS] [LABEL]` (fields apart by spaces or tabs, a
/// path with spaces in double quotes, relative paths from the playlist's folder), or
/// `blank SECONDS [LABEL]` for a grey screen with a fixation cross. SECONDS shows an image that
/// long (default: the image seconds given) and cuts a video there (default: its end). Blank lines
/// and lines starting with `#` are skipped.
public enum Playlist {
    public static func read(path: String, imageSeconds: Double) throws -> [PresentationItem] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "it is not UTF-8 text" : "no such file"
            throw PresenterError.unreadableItem(path: path, reason: reason)
        }
        let folder = (path as NSString).deletingLastPathComponent
        var items: [PresentationItem] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = try fieldsOf(String(line), path: path, line: number + 1)
            guard let first = fields.first, !first.hasPrefix("#") else { continue }
            let (seconds, label) = try secondsAndLabel(Array(fields.dropFirst()), path: path, line: number + 1)
            if first == "blank" {
                guard let seconds else {
                    throw PresenterError.badPlaylistLine(path: path, line: number + 1,
                                                         reason: "'blank' needs its seconds, e.g. 'blank 2'")
                }
                items.append(PresentationItem(kind: .blank, path: nil, label: label ?? "blank", seconds: seconds))
                continue
            }
            let file = first.hasPrefix("/") || folder.isEmpty ? first : (folder as NSString).appendingPathComponent(first)
            items.append(try item(file, label: label, seconds: seconds, imageSeconds: imageSeconds, path: path, line: number + 1))
        }
        guard !items.isEmpty else { throw PresenterError.emptyPlaylist(path: path) }
        return items
    }

    /// A line's file: refused as `FILE:LINE: why` when it is missing, unplayable or a playlist itself.
    private static func item(_ file: String, label: String?, seconds: Double?, imageSeconds: Double, path: String, line: Int) throws
        -> PresentationItem {
        if PresentationItem.playlistExtensions.contains((file as NSString).pathExtension.lowercased()) {
            throw PresenterError.badPlaylistLine(path: path, line: line, reason: "\((file as NSString).lastPathComponent) is a "
                                                 + "playlist, and playlists cannot nest: list its items here instead")
        }
        do {
            return try PresentationItem.file(file, label: label, seconds: seconds, imageSeconds: imageSeconds)
        } catch let error as PresenterError {
            throw PresenterError.badPlaylistLine(path: path, line: line, reason: error.description)
        }
    }

    /// A line's fields: apart by spaces or tabs, a double-quoted field may hold spaces.
    static func fieldsOf(_ line: String, path: String, line number: Int) throws -> [String] {
        var fields: [String] = [], current = "", quoted = false, started = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                started = true
            } else if !quoted && (character == " " || character == "\t" || character == "\r") {
                if started { fields.append(current) }
                current = ""
                started = false
            } else {
                current.append(character)
                started = true
            }
        }
        if quoted { throw PresenterError.badPlaylistLine(path: path, line: number, reason: "a double quote is not closed") }
        if started { fields.append(current) }
        return fields
    }

    /// The optional seconds (a number first) and the optional label (the rest, joined by spaces).
    private static func secondsAndLabel(_ rest: [String], path: String, line: Int) throws -> (Double?, String?) {
        guard let first = rest.first else { return (nil, nil) }
        var label = rest
        var seconds: Double?
        if let number = Double(first) {
            guard number > 0, number.isFinite else {
                throw PresenterError.badPlaylistLine(path: path, line: line, reason: "\(first) is not a positive number of seconds")
            }
            seconds = number
            label.removeFirst()
        }
        return (seconds, label.isEmpty ? nil : label.joined(separator: " "))
    }
}
