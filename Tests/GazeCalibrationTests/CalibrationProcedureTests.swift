import Foundation
import GazeCalibration
import GazeModel
import JSONStream
import Testing
import TestSupport
@testable import GazeCore

@Suite("Calibration procedure")
struct CalibrationProcedureTests {
    /// Drives an interactive run at 30 fps, the participant looking at whichever target is shown.
    struct Run {
        var procedure: CalibrationProcedure
        var participant = ConstructedParticipant(generator: SeededGenerator(state: 21))
        var time = 0.0

        init(layout: CalibrationLayout = .five, minimumSamples: Int = 8) {
            procedure = CalibrationProcedure(targets: CalibrationProcedure.layoutTargets(layout, width: 1920, height: 1080),
                                             scripted: false, settleSeconds: 0.5, collectSeconds: 1.0,
                                             fitter: CalibrationFitter(minimumSamplesPerPoint: minimumSamples))
        }

        /// One frame: looking at the current target (or the centre), or with no face / eyes shut.
        mutating func frame(face: Bool = true, eyesOpen: Bool = true) {
            time += 1.0 / 30
            let target = procedure.currentIndex.map { procedure.targets[$0].position } ?? Point2(960, 540)
            var features = participant.samples(at: target, count: 1)[0]
            features.timestampSeconds = time
            if !eyesOpen { features.pupilLeft = nil; features.pupilRight = nil }
            procedure.frame(face && eyesOpen ? features : nil, faceFound: face, timeSeconds: time)
        }

        mutating func frames(_ count: Int, face: Bool = true, eyesOpen: Bool = true) {
            for _ in 0..<count { frame(face: face, eyesOpen: eyesOpen) }
        }
    }

    @Test("Instructions wait for Space; each target settles, then collects to 100 %, then the next appears")
    func interactiveFlow() throws {
        var run = Run()
        run.frames(60)
        #expect(run.procedure.phase == .instructions)
        run.procedure.pressSpace()
        #expect(run.procedure.phase == .target(index: 0))
        // Settle: 0.5 s at 30 fps, no progress
        run.frames(14)
        #expect(run.procedure.settling && run.procedure.progress == 0)
        run.frames(16)
        #expect(!run.procedure.settling && run.procedure.progress > 0 && run.procedure.progress < 0.6)
        run.frames(20)
        #expect(run.procedure.phase == .target(index: 1))
        // Through the rest of the calibration and the four validation targets
        for _ in 0..<(8 * 47) where !run.procedure.isDone { run.frame() }
        #expect(run.procedure.phase == .finished)
        let outcome = try #require(run.procedure.outcome)
        #expect(outcome.calibrationSamples.count == 5 && outcome.validationSamples.count == 4)
        #expect(outcome.calibrationSamples.allSatisfy { (29...31).contains($0.samples.count) })
        // The participant looked exactly at each target: validation agrees within a few points
        // (5 targets and 10 terms: the penalty, not the data, pins some of them down).
        #expect(outcome.validation.accuracyPoints < 30, "accuracy \(outcome.validation.accuracyPoints)")
    }

    @Test("Face lost: the point pauses (no progress) and resumes when the face is back")
    func pausesWhenFaceLost() {
        var run = Run()
        run.procedure.pressSpace()
        run.frames(25)
        let before = run.procedure.progress
        run.frames(30, face: false)
        #expect(run.procedure.faceLost)
        #expect(run.procedure.progress == before)
        #expect(run.procedure.phase == .target(index: 0))
        run.frames(3)
        #expect(!run.procedure.faceLost && run.procedure.progress > before)
    }

    @Test("Eyes shut through a point: it asks for a retry; Space retries it with fresh samples")
    func retriesAPoint() {
        var run = Run()
        run.procedure.pressSpace()
        run.frames(16)
        run.frames(40, eyesOpen: false)
        guard case .retry(let index, let reason) = run.procedure.phase else {
            Issue.record("expected a retry, got \(run.procedure.phase)")
            return
        }
        #expect(index == 0 && reason.contains("usable samples"))
        // Frames while waiting are ignored
        let waiting = run.procedure.usableCount(0)
        #expect(waiting < 8)
        run.frames(30)
        #expect(run.procedure.currentIndex == 0 && run.procedure.usableCount(0) == waiting)
        run.procedure.pressSpace()
        run.frames(50)
        #expect(run.procedure.phase == .target(index: 1))
        #expect(run.procedure.usableCount(0) >= 29)
    }

    @Test("Esc aborts at any point, leaving no outcome")
    func aborts() {
        var run = Run()
        run.procedure.pressSpace()
        run.frames(40)
        run.procedure.abort()
        run.frames(10)
        #expect(run.procedure.phase == .aborted && run.procedure.isDone && run.procedure.outcome == nil)
    }

    @Test("Scripted: samples come from each target's window after the settle time; the run ends after the last")
    func scripted() throws {
        let layout = CalibrationProcedure.layoutTargets(.nine, width: 1920, height: 1080)
        // Targets every 2 s, each shown for 1.8 s
        let targets = layout.enumerated().map { index, target in
            CalibrationTarget(kind: target.kind, position: target.position, startSeconds: Double(index) * 2,
                              endSeconds: Double(index) * 2 + 1.8)
        }
        var procedure = CalibrationProcedure(targets: targets, scripted: true, settleSeconds: 0.5)
        var participant = ConstructedParticipant(generator: SeededGenerator(state: 2))
        var time = 100.0
        while !procedure.isDone {
            let relative = time - 100
            // The participant looks at the target on screen, or at the centre between targets
            let target = targets.first { relative >= $0.startSeconds! && relative <= $0.endSeconds! }?.position ?? Point2(960, 540)
            var features = participant.samples(at: target, count: 1)[0]
            features.timestampSeconds = time
            procedure.frame(features, faceFound: true, timeSeconds: time)
            time += 1.0 / 30
            if time > 200 { break }
        }
        #expect(procedure.phase == .finished)
        let outcome = try #require(procedure.outcome)
        // 1.3 s of each window at 30 fps
        #expect(outcome.calibrationSamples.allSatisfy { (38...40).contains($0.samples.count) })
        #expect(outcome.validation.accuracyPoints <= 1)
    }

    @Test("Scripted: a target the participant's eyes missed fails the run with the fit's reason")
    func scriptedFailure() {
        let targets = CalibrationProcedure.layoutTargets(.five, width: 1920, height: 1080).enumerated().map { index, target in
            CalibrationTarget(kind: target.kind, position: target.position, startSeconds: Double(index), endSeconds: Double(index) + 0.9)
        }
        var procedure = CalibrationProcedure(targets: targets, scripted: true, settleSeconds: 0.2)
        var participant = ConstructedParticipant(generator: SeededGenerator(state: 4))
        var time = 0.0
        while time < 4 {
            // Eyes shut during the second target
            let features = time >= 1 && time < 2 ? nil : participant.samples(at: Point2(960, 540), count: 1).first
            procedure.frame(features.map { var f = $0; f.timestampSeconds = time; return f }, faceFound: true, timeSeconds: time)
            time += 1.0 / 30
        }
        procedure.inputEnded()
        guard case .failed(let reason) = procedure.phase else {
            Issue.record("expected failure, got \(procedure.phase)")
            return
        }
        #expect(reason.contains("calibration point 2"))
        #expect(procedure.isDone)
    }
}

extension CalibrationProcedureTests {
    @Test("A target the fit leaves short after dropping outliers is skipped; the run goes on to validation")
    func fitSkipsAfterOutliers() throws {
        // 20 of the ~30 frames of a target must survive the fit
        var run = Run(layout: .nine, minimumSamples: 20)
        run.procedure.pressSpace()
        // Targets 1–8 normally; at target 9 (the last before the fit), 40 % of the frames glance
        // 400 points away: they pass the collection check, and the fit drops them.
        for _ in 0..<(8 * 47) where run.procedure.currentIndex != 8 { run.frame() }
        #expect(run.procedure.phase == .target(index: 8))
        var glance = 0
        while run.procedure.phase == .target(index: 8) {
            run.time += 1.0 / 30
            glance += 1
            let target = run.procedure.targets[8].position
            let away = glance % 5 < 2
            var features = run.participant.samples(at: away ? target + Point2(400, 0) : target, count: 1)[0]
            features.timestampSeconds = run.time
            run.procedure.frame(features, faceFound: true, timeSeconds: run.time)
        }
        // Straight on to the first validation target, without target 9
        #expect(run.procedure.phase == .target(index: 9))
        let fitted = try #require(run.procedure.fitted)
        #expect(fitted.skipped.map(\.point) == [8] && fitted.skipped[0].outliers)
        #expect(fitted.skipped[0].description.hasPrefix("calibration point 9 at (192, 540) has "))
        for _ in 0..<(5 * 47) where !run.procedure.isDone { run.frame() }
        let outcome = try #require(run.procedure.outcome)
        #expect(outcome.skippedReasons[8]?.contains("dropped as outliers") == true)
    }

    @Test("A target short of frames both steady and readable says so, though neither alone was short")
    func diagnosesFramesNeitherSteadyNorReadable() throws {
        var run = Run(layout: .nine)
        run.procedure.pressSpace()
        run.frames(16)
        // Frames alternating: a pupil found while the fit was unsteady, then a steady fit without a pupil
        var alternate = false
        while run.procedure.phase == .target(index: 0) {
            run.time += 1.0 / 30
            var features = run.participant.samples(at: run.procedure.targets[0].position, count: 1)[0]
            features.timestampSeconds = run.time
            if alternate { features.pupilLeft = nil; features.pupilRight = nil } else { features.trackingNormal = false }
            alternate.toggle()
            run.procedure.frame(features, faceFound: true, timeSeconds: run.time)
        }
        guard case .retry(0, let reason) = run.procedure.phase else {
            Issue.record("expected an offer to show target 1 again, got \(run.procedure.phase)")
            return
        }
        // (The one usable frame is the last of the settle frames, collected as the window opened.)
        #expect(reason.contains("(needs 8): only 1 of the 30 frames with a face were steady with a pupil found or both eyes open;"),
                "\(reason)")
    }

    @Test("A target short for the preferred set alone is offered once more: its pupils would do, its patches would not")
    func offersATargetShortForThePatches() throws {
        var run = Run(layout: .nine)
        var participant = PatchParticipant(seed: 22)
        // Frames at the first target (index 0): blinks (steady, eyes shut) alternating with open
        // eyes the fit held unsteadily — pupils in all of them
        func showFirstTarget() {
            var index = 0
            while run.procedure.phase == .target(index: 0) {
                run.time += 1.0 / 30
                var features = participant.frame(run.procedure.targets[0].position, pupil: true,
                                                 openness: index % 2 == 0 ? 0.05 : 0.9, steady: index % 2 == 0)
                features.timestampSeconds = run.time
                index += 1
                run.procedure.frame(features, faceFound: true, timeSeconds: run.time)
            }
        }
        run.procedure.pressSpace()
        showFirstTarget()
        // Then it is offered again, the reason counting the patches' samples, not the pupils'
        guard case .retry(0, let reason) = run.procedure.phase else {
            Issue.record("expected an offer to show the first target again, got \(run.procedure.phase)")
            return
        }
        #expect(reason.hasPrefix("0 samples with both eyes open for the eye patches of 30 (needs 8): "), "\(reason)")
        #expect(reason.contains("frames with a face were steady with both eyes open;"), "\(reason)")
        // Shown again and short again: the procedure goes on to the next target
        run.procedure.pressSpace()
        showFirstTarget()
        #expect(run.procedure.phase == .target(index: 1))
    }

    @Test("Validation targets are measured whatever set maps them: no offer for frames the patches cannot read")
    func validationTargetsNotOfferedForThePatches() throws {
        var participant = PatchParticipant(seed: 23)
        let targets = CalibrationLayout.nine.calibrationFractions.map { Point2($0.x * 1920, $0.y * 1080) }
        // A polynomial mapping, fitted on frames whose eye patches were never readable (eyes judged shut)
        let calibration = targets.map { target in
            CalibrationPointSamples(target: target, samples: (0..<36).map { k in
                participant.frame(target, pupil: true, openness: k % 2 == 0 ? 0.05 : 0.9, steady: k % 2 == 0)
            })
        }
        let mapping = try CalibrationFitter { $0.featureSets = [.pupilPolynomial] }.fit(calibration).mapping
        var procedure = CalibrationProcedure(validating: mapping, targets: [CalibrationTarget(kind: .validation, position: targets[0])],
                                             scripted: false, settleSeconds: 0.3, collectSeconds: 0.5)
        procedure.pressSpace()
        // When validated with the same kind of frames
        var time = 0.0, index = 0
        while !procedure.isDone && time < 10 {
            time += 1.0 / 30
            var features = participant.frame(targets[0], pupil: true, openness: index % 2 == 0 ? 0.05 : 0.9,
                                             steady: index % 2 == 0)
            features.timestampSeconds = time
            index += 1
            procedure.frame(features, faceFound: true, timeSeconds: time)
            if case .retry = procedure.phase { break }
        }
        // Then the target is measured, not offered again
        #expect(procedure.phase == .finished)
        #expect(procedure.validation?.points.count == 1)
    }

    @Test("A target that falls short is offered once more: short again, it is skipped; S skips it at once")
    func skipsAfterOneOffer() throws {
        var run = Run(layout: .nine)
        run.procedure.pressSpace()
        // Target 1 with the eyes shut: offered again, and shut again: skipped, target 2 follows
        run.frames(16)
        run.frames(40, eyesOpen: false)
        guard case .retry(0, _) = run.procedure.phase else {
            Issue.record("expected an offer to show target 1 again, got \(run.procedure.phase)")
            return
        }
        run.procedure.pressSpace()
        run.frames(16)
        run.frames(40, eyesOpen: false)
        #expect(run.procedure.phase == .target(index: 1))
        // Target 2 short too (the eyes shut throughout), skipped with S at the offer; target 3 follows
        while run.procedure.phase == .target(index: 1) { run.frame(eyesOpen: false) }
        guard case .retry(1, _) = run.procedure.phase else {
            Issue.record("expected an offer to show target 2 again, got \(run.procedure.phase)")
            return
        }
        run.procedure.pressSkip()
        #expect(run.procedure.phase == .target(index: 2))
        // The rest normally: 7 of 9 are enough; the outcome names both skipped targets and why
        for _ in 0..<(12 * 47) where !run.procedure.isDone { run.frame() }
        #expect(run.procedure.phase == .finished)
        let outcome = try #require(run.procedure.outcome)
        #expect(outcome.fit.skipped.map(\.point) == [0, 1])
        #expect(outcome.skippedReasons[0]?.hasPrefix("calibration point 1 at (960, 540) has ") == true)
        #expect(outcome.skippedReasons[0]?.contains("(needs 8): the eyes were closed in ") == true)
        #expect(outcome.skippedReasons[1]?.contains("frames with a face") == true)
    }
}

extension CalibrationProcedureTests {
    @Test("Validation only: every target measures the given mapping; nothing is fitted")
    func validationOnly() throws {
        var participant = ConstructedParticipant(generator: SeededGenerator(state: 31))
        let mapping = try CalibrationFitter().fit(participant.points(.nine)).mapping
        let targets = ([Point2(0.5, 0.5)] + CalibrationLayout.nine.validationFractions).map {
            CalibrationTarget(kind: .calibration, position: Point2($0.x * 1920, $0.y * 1080))
        }
        var procedure = CalibrationProcedure(validating: mapping, targets: targets, scripted: false, settleSeconds: 0.3,
                                             collectSeconds: 0.5)
        #expect(procedure.targets.allSatisfy { $0.kind == .validation })
        procedure.pressSpace()
        var time = 0.0
        while !procedure.isDone && time < 30 {
            time += 1.0 / 30
            let target = procedure.currentIndex.map { procedure.targets[$0].position } ?? Point2(960, 540)
            var features = participant.samples(at: target, count: 1)[0]
            features.timestampSeconds = time
            procedure.frame(features, faceFound: true, timeSeconds: time)
        }
        #expect(procedure.phase == .finished)
        #expect(procedure.outcome == nil && procedure.fitted == nil)
        let report = try #require(procedure.validation)
        #expect(report.points.count == 5 && report.points.allSatisfy { $0.samples >= 14 })
        #expect(report.accuracyPoints <= 1)
    }
}
