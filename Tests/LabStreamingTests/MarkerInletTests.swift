import Foundation
import GazeModel
import LabStreaming
import Testing

/// Markers from another program's LSL stream, as a pylsl outlet (PsychoPy's way) sends them.
@Suite("Marker inlet")
struct MarkerInletTests {
    /// Sends 5 markers, each stamped 0.2 s before it is pushed (as a stimulus program stamps the
    /// moment of a flip it reports late), and prints each one's label and Unix time of its stamp.
    static let outletScript = """
        import json, sys, time, pylsl
        name, source_id = sys.argv[1], sys.argv[2]
        outlet = pylsl.StreamOutlet(pylsl.StreamInfo(name, "Markers", 1, 0, "string", source_id))
        if not outlet.wait_for_consumers(15.0):
            sys.exit("no consumer")
        time.sleep(0.2)
        sent = []
        for i in range(5):
            # The tightest of a few brackets of Unix time around the LSL clock reading.
            before, stamp, after = min(((time.time(), pylsl.local_clock(), time.time()) for _ in range(5)),
                                       key=lambda reading: reading[2] - reading[0])
            outlet.push_sample(["stimulus %d" % i], stamp - 0.2)
            sent.append({"label": "stimulus %d" % i, "unix": (before + after) / 2 - 0.2})
            time.sleep(0.05)
        time.sleep(1.0)
        print(json.dumps(sent))
        """

    /// Markers handed on by an inlet, collected across its thread.
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var markers: [Marker] = []
        func add(_ marker: Marker) { lock.withLock { markers.append(marker) } }
        var all: [Marker] { lock.withLock { markers } }
    }

    @Test("a pylsl marker outlet's 5 markers arrive with their labels at their own times, to a few milliseconds",
          .enabled(if: LabFixtures.available, LabFixtures.missingReason), .timeLimit(.minutes(1)))
    func markersFromPylsl() throws {
        // Given: a pylsl marker outlet and an inlet that resolved it by predicate.
        let library = try #require(LabFixtures.library)
        let sourceID = LabFixtures.uniqueSourceID("psychopy-markers-test")
        let client = try LabFixtures.startPython(Self.outletScript, arguments: ["PsychoPyMarkers", sourceID])
        let collected = Collected()
        let inlet = try MarkerInlet(library: library, predicate: "name='PsychoPyMarkers' and source_id='\(sourceID)'",
                                    resolveTimeoutSeconds: 15) { collected.add($0) }
        #expect(inlet.streamName == "PsychoPyMarkers" && inlet.sourceID == sourceID)

        // When: it pulls while the outlet sends.
        inlet.start()
        let result = client.finish(timeoutSeconds: 30)
        let stored = inlet.stop()

        // Then: five markers, labelled as sent, each at its stamp's Unix time within 5 ms.
        #expect(result.status == 0, "pylsl outlet: \(result.errors)")
        let sent = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        let markers = collected.all
        #expect(stored == 5 && markers.count == 5)
        #expect(markers.map(\.label) == sent.map { $0["label"] as? String ?? "" })
        for (marker, expected) in zip(markers, sent) {
            let error = marker.timestampSeconds - (expected["unix"] as? Double ?? 0)
            #expect(abs(error) < 0.005, "\(marker.label): \(error * 1000) ms off")
        }
        #expect(abs(inlet.timeCorrectionSeconds) < 0.005, "one machine: LSL's time correction is about 0")
    }

    @Test("no stream matching the predicate: one line naming the predicate and what to do",
          .enabled(if: LabFixtures.available, LabFixtures.missingReason), .timeLimit(.minutes(1)))
    func noStream() throws {
        let library = try #require(LabFixtures.library)
        let predicate = "source_id='\(LabFixtures.uniqueSourceID("nobody"))'"
        let started = Date()
        #expect(throws: LabStreamingError.streamNotFound(predicate: predicate, timeoutSeconds: 1)) {
            _ = try MarkerInlet(library: library, predicate: predicate, resolveTimeoutSeconds: 1) { _ in }
        }
        #expect(Date().timeIntervalSince(started) < 3)
        let message = LabStreamingError.streamNotFound(predicate: predicate, timeoutSeconds: 1).description
        #expect(!message.contains("\n") && message.contains(predicate) && message.contains("1 s"))
    }
}
