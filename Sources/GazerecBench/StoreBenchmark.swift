import Foundation
import GazeModel
import JSONStream
import SessionStore

/// The session-store benchmark: a synthetic one-hour 60 fps session through `gazerec import`/`export`,
/// side by side with Foundation's `JSONEncoder` on an in-memory `Codable` model (the iOS package's way).
enum StoreBenchmark {
    static let sampleCount = 216_000  // one hour at 60 fps

    static func run(binary: String, workDirectory: String) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let input = workDirectory + "/hour.json"
        let database = workDirectory + "/bench.sqlite"
        try? SessionDatabase.deleteFiles(path: database)

        let generated = try measure { try writeSyntheticSession(to: input) }
        let size = (try fm.attributesOfItem(atPath: input)[.size] as? Int) ?? 0
        print("synthetic session: \(sampleCount) gaze + \(2 * sampleCount) blend-shape samples, "
              + "\(String(format: "%.1f", Double(size) / 1e6)) MB JSON (written in \(format(generated)) s)")
        print("")
        print("step                           wall s   peak RSS MB   target")

        let environment = ["GAZEREC_DATABASE": database]
        let importRun = try Child.run(binary, ["import", input], environment: environment, discardOutput: true)
        report("gazerec import", importRun, target: "≤ 3 s, ≤ 100 MB")
        let id = "BE4C4A5E-0000-4000-8000-000000000001"
        let exportRun = try Child.run(binary, ["export", id, "--output", workDirectory + "/out.json"], environment: environment)
        report("gazerec export", exportRun, target: "≤ 1.5 s, ≤ 100 MB")
        let snakeRun = try Child.run(binary, ["export", "--snake-case", id, "--output", workDirectory + "/snake.json"],
                                     environment: environment)
        report("gazerec export --snake-case", snakeRun, target: "≤ 1.5 s, ≤ 100 MB")
        let stdoutRun = try Child.run(binary, ["export", id], environment: environment, discardOutput: true)
        report("gazerec export > /dev/null", stdoutRun, target: "")
        let csvRun = try Child.run(binary, ["export", "--format", "csv", id, "--output", workDirectory + "/out.csv"],
                                   environment: environment)
        report("gazerec export --format csv", csvRun, target: "≤ 2 s, flat memory")

        // The iOS package's way: the whole session as Codable structs, encoded by JSONEncoder.
        let model = codableSession()
        var encoded = Data()
        let encoder = JSONEncoder()
        let encodeSeconds = try measure { encoded = try encoder.encode(model) }
        let snakeEncoder = JSONEncoder()
        snakeEncoder.keyEncodingStrategy = .convertToSnakeCase
        let snakeEncodeSeconds = try measure { encoded = try snakeEncoder.encode(model) }
        print(pad("JSONEncoder (Codable)") + String(format: " %6.2f   (in memory: %.0f MB of JSON held at once)",
                                                    encodeSeconds, Double(encoded.count) / 1e6))
        print(pad("JSONEncoder snake_case") + String(format: " %6.2f", snakeEncodeSeconds))
        print("")
        print(String(format: "export speed-up over JSONEncoder: %.1f× to a synced file, %.1f× to stdout (camelCase); "
                     + "%.1f× (snake_case, file); target ≥ 5×",
                     encodeSeconds / exportRun.seconds, encodeSeconds / stdoutRun.seconds, snakeEncodeSeconds / snakeRun.seconds))
        try? fm.removeItem(atPath: workDirectory)
    }

    static func report(_ name: String, _ run: Child.Result, target: String) {
        print(pad(name) + String(format: " %6.2f   %8.1f      ", run.seconds, run.peakRSSMegabytes) + target
              + (run.status == 0 ? "" : "   FAILED (exit \(run.status))"))
    }

    static func pad(_ text: String) -> String { text.padding(toLength: 30, withPad: " ", startingAt: 0) }

    static func measure(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func format(_ seconds: Double) -> String { String(format: "%.2f", seconds) }

    /// Timestamps and values with full double precision, as a real recording has them.
    static func sample(_ index: Int) -> (t: Double, x: Double, y: Double, blinkL: Double, blinkR: Double) {
        let t = 1_763_000_000.123456 + Double(index) / 60.0
        let phase = Double(index) * 0.013
        return (t, 960 + 700 * sin(phase) + 0.123456789, 540 + 400 * cos(phase * 0.7) + 0.987654321,
                max(0, sin(phase * 3.1)) * 0.731, max(0, sin(phase * 3.1 + 0.2)) * 0.694)
    }

    static func writeSyntheticSession(to path: String) throws {
        let sink = try FileByteSink(creating: path)
        let json = JSONWriter(sink: sink)
        try json.beginObject()
        try json.key("id"); try json.string("BE4C4A5E-0000-4000-8000-000000000001")
        try json.key("appID"); try json.string("benchmark")
        try json.key("beginTime"); try json.number(sample(0).t)
        try json.key("endTime"); try json.number(sample(sampleCount - 1).t)
        try json.key("scanPath")
        try json.beginArray()
        for index in 0..<sampleCount {
            let s = sample(index)
            try json.element(); try json.beginObject()
            try json.key("timestamp"); try json.number(s.t)
            try json.key("x"); try json.number(s.x)
            try json.key("y"); try json.number(s.y)
            try json.key("orientation"); try json.integer(3)
            try json.endObject()
        }
        try json.endArray()
        try json.key("blendShapes")
        try json.beginObject()
        for name in ["eyeBlink_L", "eyeBlink_R"] {
            try json.key(name)
            try json.beginArray()
            for index in 0..<sampleCount {
                let s = sample(index)
                try json.element(); try json.beginObject()
                try json.key("blendShapeLocation"); try json.string(name)
                try json.key("value"); try json.number(name == "eyeBlink_L" ? s.blinkL : s.blinkR)
                try json.key("timestamp"); try json.number(s.t)
                try json.key("orientation"); try json.integer(3)
                try json.endObject()
            }
            try json.endArray()
        }
        try json.endObject()
        try json.key("deviceInfo")
        try json.beginObject()
        try json.key("model"); try json.string("Benchmark Camera")
        try json.key("screenSize"); try json.beginArray(); try json.element(); try json.integer(1920)
        try json.element(); try json.integer(1080); try json.endArray()
        try json.key("systemName"); try json.string("Linux")
        try json.key("systemVersion"); try json.string("bench")
        try json.endObject()
        try json.endObject()
        try json.flush()
    }

    // The iOS package's model, as Codable structs.
    struct Gaze: Codable { var x: Double; var y: Double; var timestamp: Double; var orientation: Int; var trackingState: String? }
    struct BlendShape: Codable { var blendShapeLocation: String; var value: Double; var timestamp: Double; var orientation: Int }
    struct Device: Codable { var model: String; var screenSize: [Double]; var systemName: String; var systemVersion: String }
    struct Session: Codable {
        var id: String; var appID: String; var beginTime: Double; var endTime: Double?
        var scanPath: [Gaze]; var blendShapes: [String: [BlendShape]]; var deviceInfo: Device
    }

    static func codableSession() -> Session {
        var gaze: [Gaze] = [], left: [BlendShape] = [], right: [BlendShape] = []
        gaze.reserveCapacity(sampleCount)
        for index in 0..<sampleCount {
            let s = sample(index)
            gaze.append(Gaze(x: s.x, y: s.y, timestamp: s.t, orientation: 3))
            left.append(BlendShape(blendShapeLocation: "eyeBlink_L", value: s.blinkL, timestamp: s.t, orientation: 3))
            right.append(BlendShape(blendShapeLocation: "eyeBlink_R", value: s.blinkR, timestamp: s.t, orientation: 3))
        }
        return Session(id: "BE4C4A5E-0000-4000-8000-000000000001", appID: "benchmark", beginTime: sample(0).t,
                       endTime: sample(sampleCount - 1).t, scanPath: gaze, blendShapes: ["eyeBlink_L": left, "eyeBlink_R": right],
                       deviceInfo: Device(model: "Benchmark Camera", screenSize: [1920, 1080], systemName: "Linux", systemVersion: "bench"))
    }
}

/// Runs a child process and reports its wall time and peak resident memory (wait4's rusage).
enum Child {
    struct Result {
        var status: Int32
        var seconds: Double
        var peakRSSMegabytes: Double
    }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                    discardOutput: Bool = false) throws -> Result {
        let errorPath = NSTemporaryDirectory() + "/gazerec-bench-stderr-\(getpid())"
        defer { unlink(errorPath) }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if discardOutput { posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0) }
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let code = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard code == 0 else { throw NSError(domain: "spawn", code: Int(code)) }
        var status: Int32 = 0
        var usage = rusage()
        wait4(pid, &status, 0, &usage)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if (status >> 8) & 0xFF != 0, let message = try? String(contentsOfFile: errorPath, encoding: .utf8) {
            FileHandle.standardError.write(Data(("\(arguments.first ?? ""): " + message).utf8))
        }
        return Result(status: (status >> 8) & 0xFF, seconds: seconds, peakRSSMegabytes: Double(usage.ru_maxrss) / 1024)
    }
}
