import Foundation
import GazeCapture
import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import GazeVision

@Suite("Blinks seen from a camera below the face: every blink found; the jitter-scaled rule's false events")
struct ForeshortenedBlinkTests {
    /// The hand-labelled clip seen from below, as `Scripts/blink-standins.sh` makes it: the frame's
    /// top narrowed by 10 % a side and the frame squashed to 55 % of its height (losslessly, so the
    /// frames are the same on every machine).
    func lookingUp(_ clip: String, in folder: TemporaryFolder) throws -> String {
        let path = folder.path("\(clip)-up55.mp4")
        let made = try Binary.runProcess("/usr/bin/ffmpeg", [
            "-v", "error", "-i", Fixtures.path("video/\(clip).mp4"), "-vf",
            "perspective=x0=W*0.1:y0=0:x1=W*0.9:y1=0:x2=0:y2=H:x3=W:y3=H:sense=destination,scale=iw:trunc(ih*55/200)*2",
            "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", "-an", path,
        ])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        return path
    }

    /// The clip's blink events under `rule` as frame ranges (start frame to the last frame before
    /// `end`), and the detector's jitter at the end.
    func events(_ path: String, rule: BlinkRule = .round3) throws -> (events: [ClosedRange<Int>], jitter: Double) {
        let source = try VideoFileSource(path: path)
        let pipeline = try FramePipeline(model: VisionFixtures.model(), width: source.width, height: source.height)
        pipeline.useBlinkRule(rule)
        var events: [BlinkEvent] = []
        while let frame = try source.nextFrame() {
            if let event = try pipeline.process(frame).1 { events.append(event) }
        }
        if let event = pipeline.finish() { events.append(event) }
        let frame = 0.04
        let ranges = events.map { Int(($0.startSeconds / frame).rounded())...Int(($0.endSeconds / frame).rounded()) - 1 }
        return (ranges, pipeline.extractor.blinkDetector.jitter)
    }

    /// The jitter-scaled rule (`round3`, shipped in round 3; recordings use `round2` again, which
    /// real labelled clips (not shared) rank above it): its false events on foreshortened eyes.
    @Test("round3 on both labelled clips seen from below: every blink is found and under half the events are false (round2: 11 false of 16)",
          .enabled(if: VisionFixtures.available, VisionFixtures.missingReason))
    func lookingUpClips() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var labelled = 0, found = 0, falseEvents = 0
        for clip in ["cap13_blinks_20s", "cap12_headturns_20s"] {
            let labels = try FramePipelineTests.labelledBlinks(clip)
            let upright = try events(Fixtures.path("video/\(clip).mp4"))
            let fromBelow = try events(try lookingUp(clip, in: folder))
            // The foreshortened eyes' landmarks jitter about twice as much as the upright clip's,
            // whose jitter is within the reference the thresholds were set at (so they hold there).
            #expect(upright.jitter < BlinkDetector().referenceJitter, "\(clip): upright jitter \(upright.jitter)")
            #expect(fromBelow.jitter > 1.5 * upright.jitter, "\(clip): jitter \(fromBelow.jitter) from below")
            labelled += labels.count
            found += labels.filter { label in fromBelow.events.contains { $0.overlaps(label) } }.count
            falseEvents += fromBelow.events.filter { event in !labels.contains { $0.overlaps(event) } }.count
            // Upright, every labelled blink and nothing else, as before.
            #expect(upright.events.count == labels.count, "\(clip): \(upright.events) for \(labels)")
            for label in labels { #expect(upright.events.contains { $0.overlaps(label) }, "\(clip): \(label) missed upright") }
        }
        #expect(found == labelled, "\(found) of \(labelled) labelled blinks found from below")
        #expect(2 * falseEvents < found + falseEvents, "\(falseEvents) false events beside \(found) right ones")
    }

    @Test("the shipped rule on both labelled clips seen from below: every blink is found",
          .enabled(if: VisionFixtures.available, VisionFixtures.missingReason))
    func lookingUpClipsShipped() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for clip in ["cap13_blinks_20s", "cap12_headturns_20s"] {
            let labels = try FramePipelineTests.labelledBlinks(clip)
            let fromBelow = try events(try lookingUp(clip, in: folder), rule: .shipped)
            for label in labels { #expect(fromBelow.events.contains { $0.overlaps(label) }, "\(clip): \(label) missed from below") }
        }
    }
}
