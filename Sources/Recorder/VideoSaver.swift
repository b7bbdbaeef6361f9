import Channels
import Foundation
import GazeCapture
import GazeCore
import GazeModel

/// Keeps a recording's frames, as the pipeline analyses them, in a lossless video file, written
/// on its own thread so encoding holds up no frame but the first.
///
/// A frame is staged as the pipeline reads it (`stage`, on the reading thread) and goes to the
/// video only once the session has recorded it (`commit`, on the recording thread), so the video
/// holds exactly the session's frames, one for one, even when a recording stops with frames read
/// ahead. Frames wait in a queue of `capacity` (4 s at 60 fps). When it is full, a `lossless` saver
/// (a video file's frames, which wait for nobody) holds the recording until the writer takes the
/// next frame, so the video keeps every frame; a camera's saver leaves the oldest waiting frame out
/// and counts it (the camera does not wait); the first frame is written at once and always kept. Each
/// frame's presentation time is its time minus the first frame's, so the frames that remain can
/// still be paired with the session's stored frames by time. A write error (a full disk) ends the
/// video, not the recording: it is reported when the saver finishes.
/// THREAD SAFETY: `stage` from the reading thread; `commit` and then `finish` (once) from the recording thread.
final class VideoSaver: @unchecked Sendable {
    let path: String
    private let writer: VideoFileWriter
    private let channel: BoundedChannel<(image: GrayImage, microseconds: Int64)>
    private let lossless: Bool
    private let done = DispatchSemaphore(value: 0)
    /// The first committed frame's time: presentation time 0 (recording thread only; the first
    /// frame is written by `commit` itself, before the writer's thread writes any).
    private var firstTimestamp: Double?
    private var dropped = 0
    private var failure: (any Error)?
    private let stagingLock = NSLock()
    private var staged: [Frame] = []

    init(path: String, width: Int, height: Int, title: String, lossless: Bool, capacity: Int = 240) throws {
        self.path = path
        self.lossless = lossless
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

    /// Queues the staged frame `index` for the video (a lossless saver waits while the queue is
    /// full, another never waits); frames staged before it were recorded earlier.
    func commit(index: Int) {
        stagingLock.lock()
        let position = staged.firstIndex { $0.index == index }
        let frame = position.map { staged[$0] }
        staged.removeFirst(position.map { $0 + 1 } ?? 0)
        stagingLock.unlock()
        guard let frame else { return }
        guard let first = firstTimestamp else {
            // The first frame is written here, before the writer's thread has anything to do: it
            // is never left out, so the video's time 0 is the session's first frame.
            firstTimestamp = frame.timestampSeconds
            do { try writer.write(frame.image, microseconds: 0) } catch { failure = error }
            return
        }
        let item = (frame.image, Int64(((frame.timestampSeconds - first) * 1e6).rounded()))
        if lossless {
            channel.send(item)
        } else if channel.sendDroppingOldest(item) {
            dropped += 1
        }
    }

    private func run() {
        defer { done.signal() }
        while let frame = try? channel.receive() {
            guard failure == nil else { continue }
            do {
                try writer.write(frame.image, microseconds: frame.microseconds)
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
