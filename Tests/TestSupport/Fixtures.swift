import Foundation
import Testing

/// Locates the shared fixture folder (`../shared/fixtures` beside the repository) and the built binary.
///
/// Tests that need a fixture use `.enabled(if: Fixtures.available, Fixtures.missingReason)`, so a
/// fresh clone without the shared folder reports them as skipped with this reason.
public enum Fixtures {
    /// The repository root (two levels above this file's folder).
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `GAZEREC_FIXTURES`, or `../shared/fixtures` relative to the repository root.
    public static let root: URL = {
        if let path = ProcessInfo.processInfo.environment["GAZEREC_FIXTURES"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    }()

    public static var available: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("LICENSES.md").path)
    }

    public static let missingReason: Comment =
        "shared fixtures not found at ../shared/fixtures (set GAZEREC_FIXTURES to their folder)"

    /// The path of a fixture file, e.g. `eyetracking/example_data_output.json`.
    public static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    /// The iOS EyeTracking export.
    public static var iosSession: String { path("eyetracking/example_data_output.json") }
}

/// A fresh temporary folder, removed by the caller with `remove()`.
public struct TemporaryFolder {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("gazerec-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}


/// The outcome of running a command.
public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var stdoutData: Data
}

/// Runs the built `gazerec` binary (found beside the test bundle, or at `GAZEREC_BINARY`).
public enum Binary {
    public static let gazerec: String = {
        if let path = ProcessInfo.processInfo.environment["GAZEREC_BINARY"], !path.isEmpty { return path }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("gazerec").path
    }()

    /// Runs `gazerec` with `arguments`, an environment overlay and optional stdin bytes.
    public static func run(_ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil) throws -> CommandResult {
        try runProcess(gazerec, arguments, environment: environment, stdin: stdin)
    }

    /// Runs any executable, capturing both streams.
    public static func runProcess(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                                  stdin: Data? = nil) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "GAZEREC_DATABASE")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Files, not pipes, so large outputs cannot dead-lock.
        let outPath = folder.path("stdout"), errPath = folder.path("stderr"), inPath = folder.path("stdin")
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        FileManager.default.createFile(atPath: inPath, contents: stdin ?? Data())
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        let outData = try Data(contentsOf: URL(fileURLWithPath: outPath))
        let errData = try Data(contentsOf: URL(fileURLWithPath: errPath))
        return CommandResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                             stderr: String(decoding: errData, as: UTF8.self), stdoutData: outData)
    }
}
