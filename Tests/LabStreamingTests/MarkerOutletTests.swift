import Foundation
import GazeModel
import LabStreaming
import Testing

/// The marker outlet as a real LSL client sees it.
@Suite("Marker outlet")
struct MarkerOutletTests {
    static let inletScript = """
        import json, sys, pylsl
        source_id, count = sys.argv[1], int(sys.argv[2])
        streams = pylsl.resolve_bypred("source_id='%s'" % source_id, 1, 10.0)
        if not streams:
            sys.exit("not found")
        inlet = pylsl.StreamInlet(streams[0], recover=False)
        info = inlet.info(5.0)
        inlet.open_stream(5.0)
        received = []
        while len(received) < count:
            values, stamp = inlet.pull_sample(timeout=5.0)
            if stamp is None:
                break
            received.append([values[0], repr(stamp)])
        print(json.dumps({"name": info.name(), "type": info.type(), "rate": info.nominal_srate(), "count": info.channel_count(),
                          "format": info.channel_format(), "received": received}))
        """

    @Test("pylsl receives each marker as one string at the marker's own time on LSL's clock, its data after a tab",
          .enabled(if: LabFixtures.available, LabFixtures.missingReason), .timeLimit(.minutes(1)))
    func pylslReceivesMarkers() throws {
        // Given: a marker outlet and a pylsl inlet subscribed to it.
        let library = try #require(LabFixtures.library)
        let identity = LabStreamIdentity.markers(camera: LabFixtures.uniqueSourceID("/dev/video-test"))
        let outlet = try MarkerOutlet(library: library, identity: identity)
        let client = try LabFixtures.startPython(Self.inletScript, arguments: [identity.sourceID, "3"])
        #expect(outlet.waitForConsumers(timeoutSeconds: 15), "pylsl did not subscribe")

        // When: three markers are pushed, the first two stamped in the past.
        let now = Date().timeIntervalSince1970
        let markers = [Marker(timestampSeconds: now - 1.25, label: "fixation cross"),
                       Marker(timestampSeconds: now - 0.5, label: "stimulus A", dataJSON: #"{"block":2}"#),
                       Marker(timestampSeconds: now, label: "response")]
        for marker in markers { try outlet.push(marker) }

        // Then: pylsl reads them in order, stamped with their own times mapped onto LSL's clock.
        let result = client.finish(timeoutSeconds: 30)
        #expect(result.status == 0, "pylsl inlet: \(result.errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(json["name"] as? String == "gazerec-markers" && json["type"] as? String == "Markers")
        #expect(json["rate"] as? Double == 0 && json["count"] as? Int == 1 && json["format"] as? Int == 3)
        let received = try #require(json["received"] as? [[String]])
        #expect(received.map { $0[0] } == ["fixation cross", "stimulus A\t{\"block\":2}", "response"])
        #expect(received.map { Double($0[1]) } == markers.map { outlet.clock.labSeconds(unixSeconds: $0.timestampSeconds) })
    }
}
