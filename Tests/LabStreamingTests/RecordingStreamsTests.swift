import Foundation
import JSONStream
import LabStreaming
import Testing
import TestSupport

/// `gazerec start --lsl` and `--markers-from lsl` as a lab uses them, with pylsl in LabRecorder's
/// and PsychoPy's place: the recording's gaze and markers on LSL, a stimulus program's markers in
/// the session.
@Suite("Recording on LSL", .serialized)
struct RecordingStreamsTests {
    /// The client: publishes a PsychoPy-like marker stream, subscribes to gazerec's gaze and
    /// marker streams, pulls every gaze sample until the stream falls silent, and while it pulls
    /// sends a marker stamped with the LSL time of gaze samples 20, 50, 80, 110 and 140 (as a
    /// stimulus program stamps a flip), then has `gazerec mark` add one from another process.
    /// Prints the samples, the markers it sent and those gazerec's marker stream carried.
    static let clientScript = """
        import json, os, subprocess, sys, pylsl, pylsl.util
        gaze_id, markers_id, psychopy_id, gazerec = sys.argv[1:5]
        outlet = pylsl.StreamOutlet(pylsl.StreamInfo("PsychoPyMarkers", "Markers", 1, 0, "string", psychopy_id))
        found = pylsl.resolve_bypred("source_id='%s'" % gaze_id, 1, 90.0)
        if not found:
            sys.exit("gazerec's gaze stream not found")
        gaze = pylsl.StreamInlet(found[0], max_buflen=120, recover=False)
        info = gaze.info(10.0)
        found = pylsl.resolve_bypred("source_id='%s'" % markers_id, 1, 10.0)
        if not found:
            sys.exit("gazerec's marker stream not found")
        relayed = pylsl.StreamInlet(found[0], max_buflen=120, recover=False)
        relayed.open_stream(10.0)
        gaze.open_stream(10.0)
        samples, sent, markers = [], [], []
        def pull(inlet, timeout):
            try:
                return inlet.pull_sample(timeout=timeout)
            except pylsl.util.LostError:  # gazerec ended: its streams are gone
                return None, None
        while True:
            values, stamp = pull(gaze, 6.0)
            if stamp is None:
                break
            samples.append({"t": repr(stamp), "v": [repr(v) for v in values]})
            relayed_values, relayed_stamp = pull(relayed, 0.0)
            if relayed_stamp is not None:
                markers.append({"label": relayed_values[0], "t": repr(relayed_stamp)})
            index = len(samples) - 1
            if index in (20, 50, 80, 110, 140):
                label = "flip %d" % index
                outlet.push_sample([label], stamp)
                sent.append({"label": label, "t": repr(stamp), "frame": index})
            if index == 160:
                subprocess.run([gazerec, "mark", "from-shell"], check=True, stdout=subprocess.DEVNULL)
        while True:
            values, stamp = pull(relayed, 0.5)
            if stamp is None:
                break
            markers.append({"label": values[0], "t": repr(stamp)})
        print(json.dumps({"rate": info.nominal_srate(), "samples": samples, "sent": sent, "relayed": markers}))
        """

    /// The number a Python `repr` wrote (nil for NaN).
    static func number(_ value: Any?) -> Double? {
        guard let text = value as? String, let number = Double(text), !number.isNaN else { return nil }
        return number
    }

    /// A frame's values as the gaze stream carries them, from the export (nil: NaN).
    static func expectedValues(frame: JSONValue, gaze: JSONValue?) -> [Double?] {
        func value(_ node: JSONValue?) -> Double? { if case .number(let number)? = node { number } else { nil } }
        let states = ["normal", "initializing", "lowConfidence", "excessiveMotion", "missing"]
        let state: Double? = if case .string(let name)? = frame["trackingState"] { states.firstIndex(of: name).map(Double.init) } else { nil }
        return [value(gaze?["x"]), value(gaze?["y"])]
            + ["opennessLeft", "opennessRight", "pupilLeftU", "pupilLeftV", "pupilRightU", "pupilRightV",
               "yawDegrees", "pitchDegrees", "rollDegrees", "tx", "ty", "tz"].map { value(frame[$0]) } + [state]
    }

    /// Whether `received` is `expected` to float32 precision.
    static func sameAsFloat(_ received: Double?, _ expected: Double?) -> Bool {
        guard let received, let expected else { return received == nil && expected == nil }
        return abs(received - expected) <= max(1e-6, 1e-6 * abs(expected))
    }

    @Test("start --lsl --markers-from lsl: pylsl receives every frame with the export's values at the clip's rate; its 5 markers and a mark from a shell land in the session at their frames and go out on gazerec's marker stream",
          .enabled(if: LabFixtures.available, LabFixtures.missingReason), .enabled(if: Fixtures.available, Fixtures.missingReason),
          .timeLimit(.minutes(4)))
    func recordingOnLSL() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let libraryPath = try #require(LabFixtures.libraryPath)
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite"), "GAZEREC_LIBLSL": libraryPath,
                           "LSLAPICFG": LabFixtures.configuration]
        // A calibration, so the stream carries gaze; the clip under a name of its own (the streams' source ids).
        let script = Fixtures.repositoryRoot.appendingPathComponent("Scripts/calibration-headturns-20s.txt").path
        let original = Fixtures.path("video/cap12_headturns_20s.mp4")
        let calibrated = try Binary.run(["calibrate", "--input", original, "--script", script], environment: environment)
        try #require(calibrated.status == 0, "\(calibrated.stderr)")
        let clipName = "clip-\(UUID().uuidString).mp4"
        try FileManager.default.createSymbolicLink(atPath: folder.path(clipName), withDestinationPath: original)
        let gazeID = LabStreamIdentity.gaze(camera: clipName).sourceID
        let markersID = LabStreamIdentity.markers(camera: clipName).sourceID
        let psychopyID = LabFixtures.uniqueSourceID("psychopy")

        // Given: the client's marker outlet is up (gazerec looks for it when it starts).
        let client = try PythonClient(python: LabFixtures.python, script: Self.clientScript,
                                      arguments: [gazeID, markersID, psychopyID, Binary.gazerec],
                                      environment: environment)
        let library = try #require(LabFixtures.library)
        _ = try MarkerInlet(library: library, predicate: "source_id='\(psychopyID)'", resolveTimeoutSeconds: 30) { _ in }

        // When: gazerec records 8 s of the clip, waiting for the client before the first frame.
        let recorded = try Binary.run(["start", "--input", folder.path(clipName), "--duration", "8", "--lsl", "--lsl-wait", "60",
                                       "--markers-from", "lsl:source_id='\(psychopyID)'"], environment: environment)
        let result = client.finish(timeoutSeconds: 60)
        try #require(recorded.status == 0, "\(recorded.stderr)")
        try #require(result.status == 0, "pylsl client: \(result.errors)")
        let id = recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let session = try JSONValue.parse(Array(try Binary.run(["export", id], environment: environment).stdoutData))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])

        // Then: every stored frame arrived, with the export's values, 1/25 s apart like the clip's frames.
        let frames = session["gazerec"]?["frames"]?.arrayValue ?? []
        let samples = try #require(json["samples"] as? [[String: Any]])
        #expect(frames.count > 150 && samples.count == frames.count, "\(samples.count) samples, \(frames.count) frames")
        #expect(json["rate"] as? Double == 25)
        var gazeByTime: [Double: JSONValue] = [:]
        for point in session["scanPath"]?.arrayValue ?? [] { if case .number(let t)? = point["timestamp"] { gazeByTime[t] = point } }
        #expect(gazeByTime.count > 100, "the calibration gives gaze")
        let frameTimes = frames.map { (frame: JSONValue) -> Double in if case .number(let t)? = frame["timestamp"] { t } else { .nan } }
        let stamps = samples.map { Self.number($0["t"]) ?? .nan }
        for (index, (frame, sample)) in zip(frames, samples).enumerated() {
            let received = (sample["v"] as? [Any] ?? []).map(Self.number)
            let expected = Self.expectedValues(frame: frame, gaze: gazeByTime[frameTimes[index]])
            #expect(received.count == 15 && zip(received, expected).allSatisfy(Self.sameAsFloat), "frame \(index): \(received) vs \(expected)")
            if index > 0 {
                #expect(abs(stamps[index] - stamps[index - 1] - 0.04) < 1e-4, "frame \(index): \(stamps[index] - stamps[index - 1]) s")
                #expect(abs((stamps[index] - stamps[0]) - (frameTimes[index] - frameTimes[0])) < 1e-6, "frame \(index)")
            }
        }

        // The client's markers are in the session at the frames they were stamped with (± one
        // frame), then the shell's; gazerec's marker stream carried all six, at those times.
        let markers = session["gazerec"]?["markers"]?.arrayValue ?? []
        let sent = try #require(json["sent"] as? [[String: Any]])
        let labels = markers.map { if case .string(let label)? = $0["label"] { label } else { "" } }
        #expect(labels == sent.map { $0["label"] as? String ?? "" } + ["from-shell"])
        let markerTimes = markers.map { (marker: JSONValue) -> Double in if case .number(let t)? = marker["timestamp"] { t } else { .nan } }
        for (time, marker) in zip(markerTimes, sent) {
            let frame = marker["frame"] as? Int ?? 0
            #expect(abs(time - frameTimes[frame]) <= 0.04, "\(marker): \(time - frameTimes[frame]) s from its frame")
        }
        let relayed = try #require(json["relayed"] as? [[String: Any]])
        #expect(relayed.map { $0["label"] as? String ?? "" } == labels)
        let offsets = zip(relayed, markerTimes).map { (Self.number($0.0["t"]) ?? .nan) - $0.1 }
        let offset = stamps[0] - frameTimes[0]
        #expect(offsets.count == 6 && offsets.allSatisfy { abs($0 - offset) < 0.005 }, "LSL − Unix: \(offsets) vs \(offset)")
        for (marker, original) in zip(relayed, sent) {
            #expect(abs((Self.number(marker["t"]) ?? .nan) - (Self.number(original["t"]) ?? .nan)) < 0.005, "\(marker)")
        }
    }

    @Test("--markers-from lsl naming a stream nobody publishes: one line naming the predicate as given, no session recorded",
          .enabled(if: LabFixtures.available, LabFixtures.missingReason), .enabled(if: Fixtures.available, Fixtures.missingReason),
          .timeLimit(.minutes(2)))
    func markerStreamMissing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let libraryPath = try #require(LabFixtures.libraryPath)
        let environment = ["GAZEREC_DATABASE": folder.path("db.sqlite"), "GAZEREC_LIBLSL": libraryPath,
                           "LSLAPICFG": LabFixtures.configuration]
        let predicate = "source_id='\(LabFixtures.uniqueSourceID("nobody"))'"
        let started = try Binary.run(["start", "--input", Fixtures.path("video/cap13_blinks_20s.mp4"), "--calibration", "none",
                                      "--lsl", "--markers-from", "lsl:" + predicate], environment: environment)
        #expect(started.status == 1 && started.stdout.isEmpty, "\(started.stderr)")
        #expect(started.stderr.split(separator: "\n").count == 1, "\(started.stderr)")
        #expect(started.stderr.contains("no LSL stream matching \(predicate) answered within 5 s"), "\(started.stderr)")
        let listed = try Binary.run(["list"], environment: environment)
        #expect(listed.status == 0 && listed.stdout.isEmpty, "\(listed.stdout)")
    }

    @Test("without liblsl, start --lsl and --markers-from lsl fail before recording with one line on how to install it")
    func withoutLibrary() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let environment = ["GAZEREC_DATABASE": database, "GAZEREC_LIBLSL": folder.path("liblsl.so.2")]
        for options in [["--lsl"], ["--markers-from", "lsl"], ["--lsl", "--detach"]] {
            let started = try Binary.run(["start", "--input", folder.path("none.mp4")] + options, environment: environment)
            #expect(started.status == 1, "\(options): \(started.stderr)")
            #expect(started.stderr.split(separator: "\n").count == 1 && started.stdout.isEmpty, "\(started.stderr)")
            #expect(started.stderr.contains("cannot load liblsl") && started.stderr.contains("Scripts/setup-lsl.sh")
                    && started.stderr.contains("Or record without --lsl"), "\(started.stderr)")
            #expect(!FileManager.default.fileExists(atPath: database), "nothing was recorded")
        }
        let misuse = try Binary.run(["start", "--input", folder.path("none.mp4"), "--lsl-wait", "5"], environment: environment)
        #expect(misuse.status == 64 && misuse.stderr.contains("add --lsl"))
    }
}
