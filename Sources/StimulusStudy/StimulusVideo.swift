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
    public func overlay(_ database: SessionDatabase, ids: [String], output: String, style: OverlayStyle = OverlayStyle()) throws
        -> OverlayResult {
        guard let format = VideoOutputFormat.forPath(output) else { throw StimulusStudyError.unknownVideoKind(path: output) }
        let (viewings, skipped) = try usableWithGaze(database, ids: ids)
        let reader = try openStimulus()
        let layout = reader.layout
        let overlay = GazeOverlay(viewings: viewings, width: layout.width, height: layout.height, style: style)
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
                    try writer.write(drawn.bytes, microseconds: Int64((seconds * 1e6).rounded()))
                }
            }
            frames = writer.framesWritten
        }
        return OverlayResult(frames: frames, width: layout.width, height: layout.height,
                             framesPerSecond: Double(rate.numerator) / Double(rate.denominator),
                             sessions: viewings.map(\.sessionID), skipped: skipped)
    }

    /// Cuts each highlight's crop, over its interval, out of the stimulus video into
    /// `folder/highlight-<rank>.mp4` (H.264; the rank is the highlight's in the list, from 1),
    /// each file whole or not at all. Creates `folder` if it does not exist (its parent must).
    public func renderHighlights(_ highlights: [Highlight], folder: String) throws -> [HighlightClip] {
        guard stimulus.durationSeconds != nil else { throw StimulusStudyError.imageHasNoClips(path: stimulus.path) }
        try Self.makeFolder(folder)
        return try highlights.enumerated().map { index, highlight in
            let path = (folder as NSString).appendingPathComponent("highlight-\(index + 1).mp4")
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
            return HighlightClip(rank: index + 1, path: path, frames: frames)
        }
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

    private static func makeFolder(_ folder: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw StimulusStudyError.cannotWriteVideo(path: folder, reason: "it is a file, not a folder") }
            return
        }
        guard mkdir(folder, 0o777) == 0 else {
            throw StimulusStudyError.cannotWriteVideo(path: folder, reason: "cannot create the folder: \(String(cString: strerror(errno)))")
        }
    }
}
