import Foundation
import JSONStream
import Testing
import TestSupport

/// Blinks said the same way everywhere: analyze's summary and --events, a recording's summary,
/// its stored events and figures, show, and the CSV.
@Suite("blinks everywhere alike")
struct BlinkCommandTests {
    static let modelPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
    static var ready: Bool { Fixtures.available && FileManager.default.fileExists(atPath: modelPath) }

    @Test("GAZEREC_BENCH_BLINK_RULE picks a candidate blink rule for analyze; an unknown name is a one-line usage error naming them",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func benchmarkRule() throws {
        let clip = Fixtures.path("video/cap13_blinks_20s.mp4")
        let wrong = try Binary.run(["analyze", "--input", clip, "--events", "--quiet"],
                                   environment: ["GAZEREC_BENCH_BLINK_RULE": "round9"])
        #expect(wrong.status == 64)
        #expect(wrong.stdout.isEmpty)
        #expect(wrong.stderr.split(separator: "\n").count == 1, "\(wrong.stderr)")
        #expect(wrong.stderr.contains("round9") && wrong.stderr.contains("round3, round2, capped, squareRoot, shutOrScaled"))
        // Every candidate finds the clip's two blinks and its long closure (as the shipped rule does).
        for rule in ["round2", "shutOrScaled"] {
            let run = try Binary.run(["analyze", "--input", clip, "--events", "--format", "csv", "--quiet"],
                                     environment: ["GAZEREC_BENCH_BLINK_RULE": rule])
            #expect(run.status == 0, "\(rule): \(run.stderr)")
            let kinds = run.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init)[4] }
            #expect(kinds == ["blink", "longClosure", "blink"], "\(rule)")
        }
    }

    @Test("the blink clip: 2 blinks and 1 long closure in analyze's summary and events, the recording's summary, its stored events and figures, show and the CSV",
          .enabled(if: ready, "needs ../shared/fixtures and the dlib model"))
    func sameEverywhere() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite")]
        let clip = Fixtures.path("video/cap13_blinks_20s.mp4")
        let words = "2 blinks, 1 long closure (eyes shut over 0.5 s)"

        let analyzed = try Binary.run(["analyze", "--input", clip, "--events", "--format", "csv"])
        #expect(analyzed.stderr.contains(words), "\(analyzed.stderr)")
        let rows = analyzed.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
        #expect(rows.map { $0[4] } == ["blink", "longClosure", "blink"])

        let recorded = try Binary.run(["start", "--input", clip, "--as-fast-as-possible"], environment: environment)
        #expect(recorded.stderr.contains(words), "\(recorded.stderr)")
        let id = recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let session = try JSONValue.parse(Array(try Binary.run(["export", id], environment: environment).stdoutData))
        let stored = session["gazerec"]?["blinks"]?.arrayValue ?? []
        // The session names the rule its blinks were found with.
        #expect(session["gazerec"]?["recorder"]?["blinkRule"] == .string("round2"))
        // And the rule of the upright check its faces were judged by.
        #expect(session["gazerec"]?["recorder"]?["uprightRule"] == .string("turnedOutlines"))
        #expect(stored.compactMap { if case .string(let kind)? = $0["kind"] { kind } else { nil } } == rows.map { $0[4] })
        // The same closures, at the same times from the clip's start.
        guard case .number(let begin)? = session["beginTime"] else { Issue.record("no beginTime"); return }
        for (event, row) in zip(stored, rows) {
            guard case .number(let start)? = event["start"], case .number(let end)? = event["end"] else { continue }
            #expect(abs(start - begin - Double(row[0])!) < 1e-4 && abs(end - begin - Double(row[1])!) < 1e-4)
        }
        #expect(session["gazerec"]?["eyes"]?["blinks"] == .number(2))
        #expect(session["gazerec"]?["eyes"]?["longClosures"] == .number(1))
        if case .number(let perclos)? = session["gazerec"]?["eyes"]?["perclos"] {
            #expect(perclos > 0.03 && perclos < 0.15, "\(perclos)")
        } else {
            Issue.record("no PERCLOS")
        }
        #expect(try Binary.run(["show", id], environment: environment).stdout.contains("Eyes           " + words))
        // The CSV flags the frames of the two blinks, and those of the long closure in a column of its own.
        let csv = try Binary.run(["export", id, "--format", "csv"], environment: environment).stdout
        let lines = csv.split(separator: "\n")
        func runs(_ column: String) -> Int {
            let index = lines[0].split(separator: ",").firstIndex(of: Substring(column))!
            let flags = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[index] == "1" }
            return zip(flags, [false] + flags).filter { $0.0 && !$0.1 }.count
        }
        #expect(runs("blink") == 2)
        #expect(runs("longClosure") == 1)
    }
}
