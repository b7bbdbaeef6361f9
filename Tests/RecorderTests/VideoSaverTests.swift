import Foundation
import GazeCapture
import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import Recorder

/// The saved video of a recording: every frame of a file, the frames a camera's writer kept (counted
/// and paired back with the stored frames by time).
@Suite("VideoSaver")
struct VideoSaverTests {
    static let start = 1_790_000_000.0

    /// The first `count` frames of the blink clip, stamped in Unix time as a camera's would be.
    static func frames(_ count: Int) throws -> [Frame] {
        let video = try VideoFileSource(path: Fixtures.path("video/cap13_blinks_20s.mp4"))
        var frames: [Frame] = []
        while frames.count < count, var frame = try video.nextFrame() {
            frame.timestampSeconds += start
            frames.append(frame)
        }
        return frames
    }

    /// Stages and commits every frame back to back (far faster than FFV1 encodes them).
    static func save(_ frames: [Frame], to path: String, lossless: Bool) throws -> RecordingFacts.SavedVideo {
        let saver = try VideoSaver(path: path, width: frames[0].width, height: frames[0].height, title: "test",
                                   lossless: lossless, capacity: 1)
        for frame in frames {
            saver.stage(frame)
            saver.commit(index: frame.index)
        }
        let (video, failure) = saver.finish()
        #expect(failure == nil)
        return video
    }

    @Test("a file's frames all reach the video however far writing falls behind: the recording waits for the writer (4)",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func fileKeepsEveryFrame() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let frames = try Self.frames(60)

        let video = try Self.save(frames, to: folder.path("file.mkv"), lossless: true)

        #expect(video.frames == 60 && video.droppedFrames == 0)
        let source = RestampedFrameSource(try VideoFileSource(path: folder.path("file.mkv")), timestamps: frames.map(\.timestampSeconds))
        var read = 0
        while let frame = try source.nextFrame() {
            let same = frame.image == frames[read].image
            #expect(same, "frame \(read)")
            read += 1
        }
        #expect(read == 60 && source.mismatch == nil)
    }

    @Test("a camera's writer that falls behind leaves frames out and counts them; what remains pairs with the stored frames by time (4)",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func cameraFramesLeftOutArePaired() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let frames = try Self.frames(60)

        let video = try Self.save(frames, to: folder.path("camera.mkv"), lossless: false)

        #expect(video.droppedFrames > 0)
        #expect(video.frames + video.droppedFrames == 60)
        let times = frames.map(\.timestampSeconds)
        let paired = RestampedFrameSource(try VideoFileSource(path: folder.path("camera.mkv")), timestamps: times,
                                          missingFrames: video.droppedFrames)
        var read: [Int] = []
        while let frame = try paired.nextFrame() {
            #expect(frame.timestampSeconds == times[frame.index])
            let same = frame.image == frames[frame.index].image
            #expect(same, "frame \(frame.index) at \(frame.timestampSeconds - Self.start) s is another frame's picture (read \(read))")
            read.append(frame.index)
        }
        #expect(paired.mismatch == nil)
        #expect(read.count == video.frames && read.first == 0 && read == read.sorted())

        // A count that does not add up is a mismatch, not a silent pairing.
        let wrong = RestampedFrameSource(try VideoFileSource(path: folder.path("camera.mkv")), timestamps: times,
                                         missingFrames: video.droppedFrames + 1)
        while try wrong.nextFrame() != nil {}
        #expect(wrong.mismatch != nil)
    }
}
