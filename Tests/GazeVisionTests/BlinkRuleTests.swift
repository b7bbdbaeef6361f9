import Foundation
import GazeCapture
import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import GazeVision

@Suite("The candidate blink rules, as Scripts/bench_blinks.py --rules runs them")
struct BlinkRuleTests {
    /// The clip's blink events under `rule`, as frame ranges (start frame to the last frame before `end`).
    func events(_ clip: String, rule: BlinkRule) throws -> [ClosedRange<Int>] {
        let source = try VideoFileSource(path: Fixtures.path("video/\(clip).mp4"))
        let pipeline = try FramePipeline(model: VisionFixtures.model(), width: source.width, height: source.height)
        pipeline.useBlinkRule(rule)
        var events: [BlinkEvent] = []
        while let frame = try source.nextFrame() {
            if let event = try pipeline.process(frame).1 { events.append(event) }
        }
        if let event = pipeline.finish() { events.append(event) }
        let frame = 0.04
        return events.map { Int(($0.startSeconds / frame).rounded())...Int(($0.endSeconds / frame).rounded()) - 1 }
    }

    @Test("every candidate rule on the hand-labelled clips: every labelled blink an event, no other event",
          .enabled(if: VisionFixtures.available, VisionFixtures.missingReason),
          arguments: BlinkRule.allCases)
    func labelledClips(rule: BlinkRule) throws {
        for clip in ["cap13_blinks_20s", "cap12_headturns_20s"] {
            let labels = try FramePipelineTests.labelledBlinks(clip)
            let found = try events(clip, rule: rule)
            for label in labels { #expect(found.contains { $0.overlaps(label) }, "\(rule) \(clip): \(label) missed in \(found)") }
            for event in found { #expect(labels.contains { $0.overlaps(event) }, "\(rule) \(clip): \(event) is no labelled blink") }
        }
    }

    @Test("the rules differ only in the drop an event needs at a given jitter: round2 fixed, capped at 0.2, squareRoot half as steep, shutOrScaled fixed for an eye seen shut")
    func requiredDrops() {
        // Each rule's drop at the reference jitter and at twice and four times it.
        func drops(_ rule: BlinkRule) -> [Double] {
            let detector = rule.detector
            return [1.0, 2, 4].map { detector.minimumDrop(atJitter: $0 * detector.referenceJitter) }
        }
        #expect(drops(.round3).map { ($0 * 1000).rounded() } == [150, 300, 300])
        #expect(drops(.round2).map { ($0 * 1000).rounded() } == [150, 150, 150])
        #expect(drops(.capped).map { ($0 * 1000).rounded() } == [150, 200, 200])
        #expect(drops(.squareRoot).map { ($0 * 1000).rounded() } == [150, 212, 300])
        // shutOrScaled: round3's curve, and the fixed drop for a closure in which an eye was seen shut.
        #expect(drops(.shutOrScaled) == drops(.round3))
        #expect(BlinkRule.shutOrScaled.detector.shutOpenness == 0.2 && BlinkRule.round3.detector.shutOpenness == nil)
        #expect(BlinkRule.shipped == .round3)
    }

    /// Events of a stream at 30 Hz whose open eyes jitter between 1 and 0.92 (about three times the
    /// reference jitter) for 3 s, then dip to 0.78 of their open level for five frames, the eyes'
    /// openness then at `openness`, and open again.
    func shallowDipOnJitter(_ rule: BlinkRule, openness: Double) -> [BlinkEvent] {
        var detector = rule.detector
        var events: [BlinkEvent] = []
        let apertures = (0..<90).map { $0 % 2 == 0 ? 1.0 : 0.92 } + Array(repeating: 0.78, count: 5) + Array(repeating: 1.0, count: 10)
        for (index, aperture) in apertures.enumerated() {
            let open = aperture < 0.8 ? openness : 1
            if let event = detector.update(timeSeconds: Double(index) / 30, leftAperture: aperture, rightAperture: aperture,
                                           leftOpenness: open, rightOpenness: open) {
                events.append(event)
            }
        }
        return events
    }

    @Test("on a jittery stream a dip of 0.22 is an event under round2 and capped, not under round3, and under shutOrScaled only when an eye was seen shut")
    func shutEyeOnJitter() {
        #expect(shallowDipOnJitter(.round2, openness: 0.4).map(\.kind) == [.blink])
        #expect(shallowDipOnJitter(.round3, openness: 0.1).isEmpty)
        #expect(shallowDipOnJitter(.capped, openness: 0.4).map(\.kind) == [.blink])  // 0.22 ≥ its cap of 0.2
        #expect(shallowDipOnJitter(.shutOrScaled, openness: 0.1).map(\.kind) == [.blink])
        #expect(shallowDipOnJitter(.shutOrScaled, openness: 0.4).isEmpty)
    }
}
