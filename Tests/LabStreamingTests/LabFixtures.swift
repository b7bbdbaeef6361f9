import Foundation
import LabStreaming
import Testing
import TestSupport

/// The real LSL client the tests talk to: pylsl 1.18 in the set-up's `.build-lsl/venv`
/// (Scripts/setup-lsl.sh), its liblsl, and the loopback-only liblsl configuration.
enum LabFixtures {
    static let folder = Fixtures.repositoryRoot.appendingPathComponent(".build-lsl")
    static let python = folder.appendingPathComponent("venv/bin/python").path
    /// liblsl.so.2 as the pylsl wheel carries it.
    static let libraryPath: String? = {
        let lib = folder.appendingPathComponent("venv/lib")
        guard let versions = try? FileManager.default.contentsOfDirectory(atPath: lib.path) else { return nil }
        return versions.map { lib.appendingPathComponent("\($0)/site-packages/pylsl/lib/liblsl.so.2").path }
            .first { FileManager.default.fileExists(atPath: $0) }
    }()
    /// `[ports] IPv6 = disable`, `[multicast] ResolveScope = machine`: nothing leaves this machine.
    static let configuration = folder.appendingPathComponent("lsl_api.cfg").path

    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: python) && libraryPath != nil
            && FileManager.default.fileExists(atPath: configuration)
    }
    static let missingReason: Comment = "pylsl is not installed in .build-lsl/venv: run Scripts/setup-lsl.sh (needs PyPI)"

    /// The pylsl wheel's liblsl, loaded after pointing liblsl at the loopback configuration (read
    /// once, at liblsl's first use in this process).
    static let library: LabStreamingLibrary? = {
        guard available, let libraryPath else { return nil }
        setenv("LSLAPICFG", configuration, 1)
        return try? LabStreamingLibrary.load(environment: ["GAZEREC_LIBLSL": libraryPath])
    }()

    /// A source id no other test or run uses.
    static func uniqueSourceID(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString)" }

    /// Starts `script` with `arguments` in pylsl's Python with the loopback configuration.
    static func startPython(_ script: String, arguments: [String]) throws -> PythonClient {
        try PythonClient(python: python, script: script, arguments: arguments, environment: ["LSLAPICFG": configuration])
    }
}

/// A Python process running a pylsl script, its standard output collected.
final class PythonClient: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var collected = Data()
    private var collectedErrors = Data()
    private let done = DispatchGroup()

    init(python: String, script: String, arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        done.enter()
        done.enter()
        Thread.detachNewThread { [self] in
            collected = output.fileHandleForReading.readDataToEndOfFile()
            done.leave()
        }
        Thread.detachNewThread { [self] in
            collectedErrors = errors.fileHandleForReading.readDataToEndOfFile()
            done.leave()
        }
    }

    /// Waits up to `timeoutSeconds` for the script to end (killing it then) and returns its
    /// standard output and its exit status (nil when it was killed).
    func finish(timeoutSeconds: Double) -> (output: String, errors: String, status: Int32?) {
        let ended = done.wait(timeout: .now() + timeoutSeconds) == .success
        if !ended {
            process.terminate()
            _ = done.wait(timeout: .now() + 2)
        }
        process.waitUntilExit()
        return (String(decoding: collected, as: UTF8.self), String(decoding: collectedErrors, as: UTF8.self),
                ended ? process.terminationStatus : nil)
    }
}
