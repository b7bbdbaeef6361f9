import Foundation
import GazeModel
import LabStreaming
import Testing

/// The gaze outlet as a real LSL client sees it: pylsl resolves it, reads its description and
/// receives every pushed sample.
@Suite("Gaze outlet")
struct GazeOutletTests {
    /// The documented channel table (docs/Lab.md): label, unit, type, eye.
    static let documentedChannels: [[String]] = [
        ["gazeX", "points", "ScreenX", "both"], ["gazeY", "points", "ScreenY", "both"],
        ["opennessLeft", "normalized", "Openness", "left"], ["opennessRight", "normalized", "Openness", "right"],
        ["pupilLeftU", "eye widths", "PupilX", "left"], ["pupilLeftV", "eye widths", "PupilY", "left"],
        ["pupilRightU", "eye widths", "PupilX", "right"], ["pupilRightV", "eye widths", "PupilY", "right"],
        ["yawDegrees", "degrees", "HeadYaw", ""], ["pitchDegrees", "degrees", "HeadPitch", ""],
        ["rollDegrees", "degrees", "HeadRoll", ""], ["tx", "mm", "HeadPositionX", ""], ["ty", "mm", "HeadPositionY", ""],
        ["tz", "mm", "HeadPositionZ", ""], ["trackingState", "code", "TrackingState", ""],
    ]

    /// Frame `index` of a constructed recording: every tenth frame from the fourth has no face,
    /// every tenth from the sixth no gaze (as without a calibration); values change every frame.
    static func frame(_ index: Int, unixSeconds: Double) -> (FrameMeasurement, GazeSample?) {
        let i = Double(index)
        if index % 10 == 3 { return (FrameMeasurement(timestampSeconds: unixSeconds, trackingState: .missing, confidence: 0), nil) }
        let measurement = FrameMeasurement(
            timestampSeconds: unixSeconds, trackingState: index % 7 == 0 ? .lowConfidence : .normal, confidence: 0.9,
            opennessLeft: 0.31 + 0.005 * i, opennessRight: 0.29 + 0.004 * i,
            pupilLeft: Point2(0.41 + 0.001 * i, 0.07 - 0.0005 * i), pupilRight: Point2(0.55 - 0.001 * i, 0.03 + 0.0002 * i),
            headPose: HeadPoseMeasurement(yawDegrees: -10 + 0.17 * i, pitchDegrees: 4.5 - 0.1 * i, rollDegrees: 1.0 / 3 + i,
                                          translation: Vector3(12.5, -3.25 + i, 600 - i)))
        let gaze = index % 10 == 5 ? nil : GazeSample(timestampSeconds: unixSeconds, x: 100.25 + 7 * i, y: 900 - 3.5 * i, orientation: 0)
        return (measurement, gaze)
    }

    /// What a client must receive for a frame, worked out from its fields (nil: NaN).
    static func expected(_ measurement: FrameMeasurement, _ gaze: GazeSample?) -> [Double?] {
        let pose = measurement.headPose
        let values: [Double?] = [gaze?.x, gaze?.y, measurement.opennessLeft, measurement.opennessRight,
                                 measurement.pupilLeft?.x, measurement.pupilLeft?.y, measurement.pupilRight?.x, measurement.pupilRight?.y,
                                 pose?.yawDegrees, pose?.pitchDegrees, pose?.rollDegrees,
                                 pose?.translation.x, pose?.translation.y, pose?.translation.z,
                                 measurement.trackingState == .missing ? 4 : measurement.trackingState == .lowConfidence ? 2 : 0]
        return values.map { $0.map { Double(Float($0)) } }
    }

    static let inletScript = """
        import json, sys, pylsl
        source_id, count = sys.argv[1], int(sys.argv[2])
        streams = pylsl.resolve_bypred("source_id='%s'" % source_id, 1, 10.0)
        if not streams:
            sys.exit("not found")
        inlet = pylsl.StreamInlet(streams[0], max_buflen=60, recover=False)
        info = inlet.info(5.0)
        inlet.open_stream(5.0)
        channels = []
        channel = info.desc().child("channels").child("channel")
        while not channel.empty():
            channels.append([channel.child_value(key) for key in ("label", "unit", "type", "eye")])
            channel = channel.next_sibling()
        samples = []
        while len(samples) < count:
            values, stamp = inlet.pull_sample(timeout=5.0)
            if stamp is None:
                break
            samples.append({"t": repr(stamp), "v": [repr(v) for v in values], "received": repr(pylsl.local_clock())})
        print(json.dumps({"name": info.name(), "type": info.type(), "source_id": info.source_id(),
                          "rate": info.nominal_srate(), "count": info.channel_count(), "format": info.channel_format(),
                          "manufacturer": info.desc().child("acquisition").child_value("manufacturer"),
                          "channels": channels, "samples": samples}))
        """

    /// A number pylsl's script wrote with Python's repr (Foundation's JSON reader on Linux does
    /// not round every number correctly, so numbers travel as text); nil for NaN.
    static func number(_ value: Any?) -> Double? {
        guard let text = value as? String, let number = Double(text), !number.isNaN else { return nil }
        return number
    }

    @Test("pylsl receives every pushed frame with its values, its capture time on LSL's clock, and the channel table",
          .enabled(if: LabFixtures.available, LabFixtures.missingReason), .timeLimit(.minutes(1)))
    func pylslReceivesFrames() throws {
        // Given: a gaze outlet at 60 Hz and a pylsl inlet subscribed to it.
        let library = try #require(LabFixtures.library)
        let identity = LabStreamIdentity.gaze(camera: LabFixtures.uniqueSourceID("/dev/video-test"))
        let outlet = try GazeOutlet(library: library, identity: identity, nominalRateHertz: 60)
        let count = 120
        let client = try LabFixtures.startPython(Self.inletScript, arguments: [identity.sourceID, "\(count)"])
        #expect(outlet.waitForConsumers(timeoutSeconds: 15), "pylsl did not subscribe")

        // When: two seconds of frames, the last captured now, are pushed.
        let lastUnix = Date().timeIntervalSince1970
        let frames = (0..<count).map { Self.frame($0, unixSeconds: lastUnix - Double(count - 1 - $0) / 60) }
        for (measurement, gaze) in frames { try outlet.push(measurement, gaze: gaze) }

        // Then: pylsl got them all, equal to float precision, stamped 1/60 s apart on its clock.
        let result = client.finish(timeoutSeconds: 30)
        #expect(result.status == 0, "pylsl inlet: \(result.errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(json["name"] as? String == "gazerec-gaze" && json["type"] as? String == "Gaze")
        #expect(json["source_id"] as? String == identity.sourceID)
        #expect(json["rate"] as? Double == 60 && json["count"] as? Int == 15 && json["format"] as? Int == 1)
        #expect(json["manufacturer"] as? String == "gazerec project")
        #expect(json["channels"] as? [[String]] == Self.documentedChannels)
        let samples = try #require(json["samples"] as? [[String: Any]])
        try #require(samples.count == count)
        for (index, sample) in samples.enumerated() {
            let values = (sample["v"] as? [Any] ?? []).map(Self.number)
            #expect(values == Self.expected(frames[index].0, frames[index].1), "frame \(index)")
            if index > 0 {
                let step = try #require(Self.number(sample["t"])) - #require(Self.number(samples[index - 1]["t"]))
                #expect(abs(step - 1.0 / 60) < 1e-6, "frame \(index): \(step) s after the one before")
            }
        }
        // The last frame was captured just before it was pushed: on pylsl's own reading of the
        // clock, it arrived a little after its timestamp, not before and not seconds later.
        let last = samples[count - 1]
        let lastStamp = try #require(Self.number(last["t"]))
        let delay = try #require(Self.number(last["received"])) - lastStamp
        #expect(delay > 0 && delay < 2, "received \(delay) s after its timestamp")
        #expect(lastStamp == outlet.clock.labSeconds(unixSeconds: lastUnix))
    }

    @Test("a frame without a face carries NaN but its tracking state; gaze is NaN without a gaze sample")
    func valuesWithoutFace() {
        let missing = FrameMeasurement(timestampSeconds: 5, trackingState: .missing, confidence: 0)
        let values = GazeChannel.values(of: missing, gaze: nil)
        #expect(values.count == Self.documentedChannels.count)
        #expect(values.dropLast().allSatisfy { $0.isNaN })
        #expect(values.last == 4)
        let (measurement, _) = Self.frame(1, unixSeconds: 5)
        let withoutGaze = GazeChannel.values(of: measurement, gaze: nil)
        #expect(withoutGaze[0].isNaN && withoutGaze[1].isNaN && !withoutGaze[2].isNaN)
        #expect(GazeChannel.all.map(\.label) == Self.documentedChannels.map { $0[0] })
    }

    @Test("stream names and source ids follow the documented rule, per station and camera")
    func identities() {
        let gaze = LabStreamIdentity.gaze(camera: "/dev/video0", host: "station-3")
        #expect(gaze == LabStreamIdentity(name: "gazerec-gaze", type: "Gaze", sourceID: "gazerec-gaze-station-3-/dev/video0"))
        let markers = LabStreamIdentity.markers(camera: "/dev/video0", host: "station-3")
        #expect(markers == LabStreamIdentity(name: "gazerec-markers", type: "Markers", sourceID: "gazerec-markers-station-3-/dev/video0"))
        #expect(LabStreamIdentity.gaze(camera: "/dev/video0") == LabStreamIdentity.gaze(camera: "/dev/video0"))
        #expect(LabStreamIdentity.gaze(camera: "/dev/video1").sourceID != gaze.sourceID)
    }
}
