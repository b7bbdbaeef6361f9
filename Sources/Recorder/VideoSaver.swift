import Channels
import Foundation
import GazeCapture
import GazeModel

/// Keeps a recording's frames, as the pipeline analyses them, in a lossless video file, written
/// on its own thread so encoding never holds up a frame.
///
/// A frame is staged as the pipeline reads it (`stage`, on the reading thread) and goes to the
/// video only once the session has recorded it (`commit`, on the recording thread), so the video
/// holds exactly the session's frames, one for one, even when a recording stops with frames read
/// ahead. Frames wait in a queue of `capacity` (4 s at 60 fps); should writing fall that far
/// behind, the oldest waiting frame is left out of the video and counted. A write error (a full
/// disk) ends the video, not the recording: it is reported when the saver finishes.
/// THREAD SAFETY: `stage` from the reading thread; `commit` and then `finish` (once) from the recording thread.
final class VideoSaver: @unchecked Sendable {
    let path: String
    private let writer: VideoFileWriter
    private let channel: BoundedChannel<Frame>
    private let done = DispatchSemaphore(value: 0)
    private var firstTimestamp: Double?
    private var dropped = 0
    private var failure: (any Error)?
    private let stagingLock = NSLock()
    private var staged: [Frame] = []

    init(path: String, width: Int, height: Int, title: String, capacity: Int = 240) throws {
        self.path = path
        writer = try VideoFileWriter(path: path, width: width, height: height, title: title)
        channel = BoundedChannel(capacity: capacity)
        let thread = Thread { [self] in run() }
        thread.name = "gazerec video"
        thread.start()
    }

    /// Holds a frame the pipeline has read until the session records it.
    func stage(_ frame: Frame) {
        stagingLock.lock()
        staged.append(frame)
        stagingLock.unlock()
    }

    /// Queues the staged frame `index` for the video (never waits); frames staged before it were recorded earlier.
    func commit(index: Int) {
        stagingLock.lock()
        let position = staged.firstIndex { $0.index == index }
        let frame = position.map { staged[$0] }
        staged.removeFirst(position.map { $0 + 1 } ?? 0)
        stagingLock.unlock()
        if let frame, channel.sendDroppingOldest(frame) { dropped += 1 }
    }

    private func run() {
        defer { done.signal() }
        while let frame = try? channel.receive() {
            guard failure == nil else { continue }
            let first = firstTimestamp ?? frame.timestampSeconds
            firstTimestamp = first
            do {
                try writer.write(frame.image, microseconds: Int64(((frame.timestampSeconds - first) * 1e6).rounded()))
            } catch {
                failure = error
            }
        }
    }

    /// Waits for the queue to empty and closes the file: what it holds, and the error that ended it early, if any.
    func finish() -> (video: RecordingFacts.SavedVideo, failure: (any Error)?) {
        channel.finish()
        done.wait()
        do {
            try writer.finish()
        } catch {
            failure = failure ?? error
        }
        return (RecordingFacts.SavedVideo(path: path, frames: writer.framesWritten, droppedFrames: dropped), failure)
    }
}
