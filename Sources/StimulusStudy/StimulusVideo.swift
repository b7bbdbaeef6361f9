import Foundation
import GazeCapture
import JSONStream
import SessionStore
import StimulusAnalysis

/// The kind of video file gazerec writes, chosen by the file's extension: `.mkv` is FFV1 in
/// Matroska (lossless: every pixel as drawn), `.mp4` H.264 in MP4 (4:2:0, CRF 18: plays anywhere).
public struct VideoOutputFormat: Sendable, Equatable {
    public var container: String
    public var codec: ColourVideoWriter.Codec

    public static let matroska = VideoOutputFormat(container: "matroska", codec: .ffv1)
    public static let mp4 = VideoOutputFormat(container: "mp4", codec: .h264)

    /// The format a file's name asks for, nil for another extension.
    public static func forPath(_ path: String) -> VideoOutputFormat? {
        switch (path as NSString).pathExtension.lowercased() {
        case "mkv": .matroska
        case "mp4": .mp4
        default: nil
        }
    }
}

/// What an overlay run wrote.
public struct OverlayResult: Sendable {
    public var frames: Int
    public var width: Int
    public var height: Int
    public var framesPerSecond: Double
    /// The sessions drawn, in the palette's order.
    public var sessions: [String]
    /// The sessions left out, with why.
    public var skipped: [StimulusError]
    /// Recordings the data-quality thresholds left out, and what to read the video with.
    public var excluded: [ExcludedRecording] = []
    public var warnings: [StimulusWarning] = []
}

/// One highlight cut out of the stimulus into its own file.
public struct HighlightClip: Sendable, Equatable {
    public var rank: Int
    public var path: String
    public var frames: Int
}

extension StimulusStudy {
    /// The frame rate of a video made from an image stimulus.
    public static let imageFramesPerSecond: Int32 = 30

    /// The stimulus with each usable session's gaze and a moving heatmap drawn over it, written to
    /// `output` (whole or not at all) at the stimulus's own size and rate; an image stimulus
    /// becomes a video as long as the longest session's viewing.
    public func overlay(_ database: SessionDatabase, ids: [String], output: String, style: OverlayStyle = OverlayStyle(),
                        selection: RecordingSelection = RecordingSelection(), areas: [AreaOfInterest] = [],
                        areasSource: String = "the areas of interest") throws -> OverlayResult {
        guard let format = VideoOutputFormat.forPath(output) else { throw StimulusStudyError.unknownVideoKind(path: output) }
        let fit = try AOIFit.check(areas, widthPixels: stimulus.widthPixels, heightPixels: stimulus.heightPixels,
                                   durationSeconds: stimulus.durationSeconds, source: areasSource)
        let usable = try usableWithGaze(database, ids: ids, selection: selection)
        let viewings = usable.viewings
        let reader = try openStimulus()
        let layout = reader.layout
        let overlay = GazeOverlay(viewings: viewings, width: layout.width, height: layout.height, style: style, areas: areas)
        let colour = reader.colour.specified(height: layout.height)
        let conversion = YCbCrConversion(matrix: colour.matrix == VideoColour.bt709Matrix ? .bt709 : .bt601,
                                         fullRange: colour.isFullRange)
        let rate = rate(of: reader)
        var frames = 0
        try writeVideo(output, format: format, layout: layout, rate: rate, colour: colour) { writer in
            var frame = PlanarFrame(width: layout.width, height: layout.height)
            if stimulus.durationSeconds != nil {
                while let seconds = try readStimulus(reader, into: &frame.bytes) {
                    overlay.draw(on: &frame, at: seconds, conversion: conversion)
                    overlay.annotate(&frame, at: seconds, conversion: conversion)
                    try writer.write(frame.bytes, microseconds: Int64((seconds * 1e6).rounded()))
                }
            } else {
                guard try readStimulus(reader, into: &frame.bytes) != nil else { throw StimulusStudyError.cannotReadStimulus(
                    path: stimulus.path, reason: "it holds no picture") }
                let duration = viewings.map(\.durationSeconds).max() ?? 0
                let count = Swift.max(1, Int((duration * Double(rate.numerator) / Double(rate.denominator)).rounded(.up)))
                for index in 0..<count {
                    var drawn = frame
                    let seconds = Double(index) * Double(rate.denominator) / Double(rate.numerator)
                    overlay.draw(on: &drawn, at: seconds, conversion: conversion)
                    overlay.annotate(&drawn, at: seconds, conversion: conversion)
                    try writer.write(drawn.bytes, microseconds: Int64((seconds * 1e6).rounded()))
                }
            }
            frames = writer.framesWritten
        }
        return OverlayResult(frames: frames, width: layout.width, height: layout.height,
                             framesPerSecond: Double(rate.numerator) / Double(rate.denominator),
                             sessions: viewings.map(\.sessionID), skipped: usable.skipped, excluded: usable.excluded,
                             warnings: fit + usable.warnings)
    }

    /// Cuts each highlight's crop, over its interval, out of the stimulus video into
    /// `folder/highlight-<rank>.mp4` (H.264; the rank is the highlight's in the list, from 1): every
    /// clip or none. The clips are written into a temporary sibling folder renamed into place, so
    /// clips of an earlier run are replaced as a whole (none left when there is no highlight). An
    /// existing `folder` must hold nothing but such clips; its parent must exist.
    public func renderHighlights(_ highlights: [Highlight], folder: String) throws -> [HighlightClip] {
        guard stimulus.durationSeconds != nil else { throw StimulusStudyError.imageHasNoClips(path: stimulus.path) }
        try Self.checkClipFolder(folder)
        var clips: [HighlightClip] = []
        do {
            try AtomicFile.writeFolder(to: folder) { temporary in
                clips = try highlights.enumerated().map { index, highlight in
                    let name = "highlight-\(index + 1).mp4"
                    do {
                        return try renderClip(highlight, rank: index + 1, path: (temporary as NSString).appendingPathComponent(name))
                    } catch StimulusStudyError.cannotWriteVideo(_, let reason) {
                        throw StimulusStudyError.cannotWriteVideo(path: (folder as NSString).appendingPathComponent(name), reason: reason)
                    }
                }
            }
        } catch let failure as AtomicFile.Failure {
            throw StimulusStudyError.cannotWriteVideo(path: folder, reason: failure.reason)
        }
        return clips.map { HighlightClip(rank: $0.rank, path: (folder as NSString).appendingPathComponent("highlight-\($0.rank).mp4"),
                                         frames: $0.frames) }
    }

    private func renderClip(_ highlight: Highlight, rank: Int, path: String) throws -> HighlightClip {
        let reader = try openStimulus()
        let layout = YUV420Layout(width: highlight.cropWidth, height: highlight.cropHeight)
        var frames = 0
        try writeVideo(path, format: .mp4, layout: layout, rate: rate(of: reader), colour: reader.colour.specified(height: reader.layout.height)) { writer in
            var frame = PlanarFrame(width: reader.layout.width, height: reader.layout.height)
            while let seconds = try readStimulus(reader, into: &frame.bytes), seconds < highlight.endSeconds - 1e-9 {
                guard seconds >= highlight.startSeconds - 1e-9 else { continue }
                let clip = frame.cropped(x: highlight.cropX, y: highlight.cropY, width: highlight.cropWidth, height: highlight.cropHeight)
                try writer.write(clip.bytes, microseconds: Int64(((seconds - highlight.startSeconds) * 1e6).rounded()))
            }
            frames = writer.framesWritten
        }
        return HighlightClip(rank: rank, path: path, frames: frames)
    }

    private func openStimulus() throws -> ColourVideoReader {
        do {
            return try ColourVideoReader(path: stimulus.path)
        } catch {
            throw StimulusStudyError.cannotReadStimulus(path: stimulus.path, reason: "\(error)")
        }
    }

    private func readStimulus(_ reader: ColourVideoReader, into bytes: inout [UInt8]) throws -> Double? {
        do {
            return try reader.read(into: &bytes)
        } catch let CaptureError.decodingFailed(_, frame, reason) {
            throw StimulusStudyError.cannotReadStimulus(path: stimulus.path, reason: "frame \(frame): \(reason)")
        }
    }

    /// The stimulus's rate as a fraction; an image's (or a rate the file does not give) is 30.
    private func rate(of reader: ColourVideoReader) -> (numerator: Int32, denominator: Int32) {
        stimulus.durationSeconds != nil && reader.rateNumerator > 0 ? (reader.rateNumerator, reader.rateDenominator)
            : (Self.imageFramesPerSecond, 1)
    }

    /// Writes one video through a temporary sibling (`AtomicFile`), its failures said of `path`.
    private func writeVideo(_ path: String, format: VideoOutputFormat, layout: YUV420Layout, rate: (numerator: Int32, denominator: Int32),
                            colour: VideoColour, _ body: (ColourVideoWriter) throws -> Void) throws {
        if format.codec == .h264, layout.width % 2 != 0 || layout.height % 2 != 0 {
            throw StimulusStudyError.cannotWriteVideo(path: path, reason: "H.264 in .mp4 needs an even width and height and this video "
                                                      + "is \(layout.width)×\(layout.height) pixels: write it as .mkv (FFV1, lossless) instead")
        }
        let parent = (path as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        if !parent.isEmpty, FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder), !isFolder.boolValue {
            throw StimulusStudyError.cannotWriteVideo(path: path, reason: "\(parent) is a file, not a folder")
        }
        do {
            try AtomicFile.write(to: path, throughPath: { temporary in
                let writer = try ColourVideoWriter(path: temporary, container: format.container, codec: format.codec, layout: layout,
                                                   rateNumerator: rate.numerator, rateDenominator: rate.denominator, colour: colour)
                try body(writer)
                try writer.finish()
            })
        } catch let failure as AtomicFile.Failure {
            throw StimulusStudyError.cannotWriteVideo(path: path, reason: failure.reason)
        } catch let CaptureError.cannotWriteVideo(_, reason) {
            throw StimulusStudyError.cannotWriteVideo(path: path, reason: reason)
        }
    }

    /// Refuses a file, a missing parent, or a folder holding anything but highlight clips.
    private static func checkClipFolder(_ folder: String) throws {
        let parent = (folder as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        if !parent.isEmpty {
            guard FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder) else {
                throw StimulusStudyError.cannotWriteVideo(path: folder, reason: "the folder \(parent) does not exist")
            }
            guard isFolder.boolValue else { throw StimulusStudyError.cannotWriteVideo(path: folder, reason: "\(parent) is a file, not a folder") }
        }
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else { return }
        guard isFolder.boolValue else { throw StimulusStudyError.cannotWriteVideo(path: folder, reason: "it is a file, not a folder") }
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        if let other = contents.sorted().first(where: { !($0.hasPrefix("highlight-") && $0.hasSuffix(".mp4")) }) {
            throw StimulusStudyError.cannotWriteVideo(
                path: folder, reason: "it holds \(other), not only highlight clips; give a new or empty folder (its clips are replaced as a whole)")
        }
    }
}
