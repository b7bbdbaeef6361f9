import CLSL
import Foundation

/// liblsl, loaded at run time from the first place gazerec finds it.
///
/// Where gazerec looks, in order: the file `GAZEREC_LIBLSL` names (only there, when set); the copy
/// the set-up installs, `$XDG_DATA_HOME/gazerec/lib/liblsl.so.2` (default
/// `~/.local/share/gazerec/lib/liblsl.so.2`); `liblsl.so.2` on the loader's default path
/// (`LD_LIBRARY_PATH`, the system's library folders). Nothing else in gazerec needs liblsl, so
/// without it only LSL use fails, with `LabStreamingError.libraryUnavailable`.
/// THREAD SAFETY: immutable once loaded; `load` may be called from any thread.
public final class LabStreamingLibrary: @unchecked Sendable {
    /// The path liblsl was loaded from.
    public let path: String
    let api: gz_lsl_api

    private init(path: String, api: gz_lsl_api) {
        self.path = path
        self.api = api
    }

    nonisolated(unsafe) private static var loaded: [String: LabStreamingLibrary] = [:]
    private static let lock = NSLock()

    /// The places to look for liblsl in `environment`, in order (see the type's summary).
    public static func candidatePaths(environment: [String: String]) -> [String] {
        if let explicit = environment["GAZEREC_LIBLSL"], !explicit.isEmpty { return [explicit] }
        var paths: [String] = []
        let data = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? environment["HOME"].map { $0 + "/.local/share" }
        if let data { paths.append(data + "/gazerec/lib/liblsl.so.2") }
        paths.append("liblsl.so.2")
        return paths
    }

    /// liblsl from the first candidate path that loads (each path is opened once per process).
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> LabStreamingLibrary {
        let candidates = candidatePaths(environment: environment)
        lock.lock()
        defer { lock.unlock() }
        var reasons: [String] = []
        for path in candidates {
            if let library = loaded[path] { return library }
            // A file path that does not exist is passed over without asking the loader.
            if path.contains("/") && !FileManager.default.fileExists(atPath: path) {
                reasons.append("\(path): no such file")
                continue
            }
            var api = gz_lsl_api()
            var error = [CChar](repeating: 0, count: 512)
            if gz_lsl_load(path, &api, &error, error.count) == 1 {
                let library = LabStreamingLibrary(path: path, api: api)
                loaded[path] = library
                return library
            }
            reasons.append(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        throw LabStreamingError.libraryUnavailable(tried: candidates, reason: reasons.joined(separator: "; "))
    }

    /// liblsl's version, major × 100 + minor (118 for 1.18).
    public var version: Int { Int(api.library_version!()) }

    /// Now on LSL's clock (`lsl_local_clock`): seconds of a monotonic clock, the time base of
    /// every LSL timestamp on this machine.
    public func localClockSeconds() -> Double { api.local_clock!() }

    /// liblsl's description of its last error, or `fallback` when it has none.
    func lastError(or fallback: String) -> String {
        guard let text = api.last_error!(), text.pointee != 0 else { return fallback }
        return String(cString: text)
    }
}
