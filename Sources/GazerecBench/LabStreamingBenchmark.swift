import Foundation
import GazeModel
import LabStreaming

/// The Lab Streaming Layer benchmark: what publishing gaze costs. Frames are pushed to a gaze outlet
/// at 60 per second, paced as a camera delivers them, for a number of seconds, and the process's CPU
/// time (all threads, liblsl's own included) is compared with the same paced loop pushing nothing.
/// With a pylsl Python given, a pylsl inlet subscribes and pulls every sample, as LabRecorder would.
enum LabStreamingBenchmark {
    static let rateHertz = 60.0

    static func run(seconds: Double, python: String?) throws {
        let library = try LabStreamingLibrary.load()
        let identity = LabStreamIdentity.gaze(camera: "bench-\(getpid())")
        let outlet = try GazeOutlet(library: library, identity: identity, nominalRateHertz: rateHertz)
        let frames = Int(seconds * rateHertz)
        let consumer = try python.map {
            try startConsumer(python: $0, sourceID: identity.sourceID, frames: frames, timeoutSeconds: seconds + 15)
        }
        if consumer != nil, !outlet.waitForConsumers(timeoutSeconds: 15) {
            FileHandle.standardError.write(Data("gazerec-bench: the pylsl inlet did not subscribe within 15 s\n".utf8))
            exit(1)
        }
        print("liblsl \(library.version / 100).\(library.version % 100) from \(library.path); \(frames) frames at 60 fps"
              + (consumer != nil ? ", a pylsl inlet subscribed" : ", no subscriber"))
        let idle = paced(frames: frames) { _ in }
        let pushing = try paced(frames: frames) { index in
            let (measurement, gaze) = frame(index, unixSeconds: Date().timeIntervalSince1970)
            try outlet.push(measurement, gaze: gaze)
        }
        if let consumer {
            consumer.waitUntilExit()
            print("pylsl inlet: \(consumer.terminationStatus == 0 ? "received every sample" : "FAILED (exit \(consumer.terminationStatus))")")
        }
        let perSample = (pushing - idle) / Double(frames)
        print("                         CPU s    CPU per frame")
        print(String(format: "paced loop, no push    %7.3f    %6.1f µs", idle, 1e6 * idle / Double(frames)))
        print(String(format: "paced loop, push       %7.3f    %6.1f µs", pushing, 1e6 * pushing / Double(frames)))
        print(String(format: "cost of a push         %7.3f    %6.1f µs per sample, %.2f %% of one core at 60 fps",
                     pushing - idle, 1e6 * perSample, 100 * perSample * rateHertz))
    }

    /// Runs `body` for `frames` frames at 60 per second and returns the process's CPU seconds.
    static func paced(frames: Int, _ body: (Int) throws -> Void) rethrows -> Double {
        let start = Date().timeIntervalSince1970
        let cpuBefore = cpuSeconds()
        for index in 0..<frames {
            let due = start + Double(index) / rateHertz
            let wait = due - Date().timeIntervalSince1970
            if wait > 0 { usleep(UInt32(wait * 1e6)) }
            try body(index)
        }
        return cpuSeconds() - cpuBefore
    }

    /// A frame with a face and gaze, its values changing with `index`.
    static func frame(_ index: Int, unixSeconds: Double) -> (FrameMeasurement, GazeSample) {
        let i = Double(index % 600)
        let pose = HeadPoseMeasurement(yawDegrees: -10 + 0.03 * i, pitchDegrees: 3, rollDegrees: 0.5,
                                       translation: Vector3(10, -20 + 0.01 * i, 600))
        let measurement = FrameMeasurement(timestampSeconds: unixSeconds, trackingState: .normal, confidence: 0.9,
                                           opennessLeft: 0.3, opennessRight: 0.31, pupilLeft: Point2(0.45, 0.05),
                                           pupilRight: Point2(0.52, 0.04), headPose: pose)
        return (measurement, GazeSample(timestampSeconds: unixSeconds, x: 100 + i, y: 400 - 0.5 * i, orientation: 0))
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// A pylsl inlet pulling `frames` samples of the stream `sourceID` (then exiting 0), waiting up
    /// to `timeoutSeconds` for each (the idle pass pushes nothing).
    static func startConsumer(python: String, sourceID: String, frames: Int, timeoutSeconds: Double) throws -> Process {
        let script = """
            import sys, pylsl
            streams = pylsl.resolve_bypred("source_id='\(sourceID)'", 1, 10.0)
            inlet = pylsl.StreamInlet(streams[0])
            inlet.open_stream(10.0)
            for _ in range(\(frames)):
                if inlet.pull_sample(timeout=\(timeoutSeconds))[1] is None:
                    sys.exit(1)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script]
        try process.run()
        return process
    }
}
