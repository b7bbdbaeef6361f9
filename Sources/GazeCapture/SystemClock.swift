import Foundation

/// Clocks and system facts for recordings.
public enum SystemClock {
    public static func unixTime() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    public static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// User + system CPU time of this process so far, all threads.
    public static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// "Debian GNU/Linux 12 (bookworm); kernel 6.1.0-…".
    public static func systemVersion() -> String {
        var distribution = "Linux"
        if let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8),
           let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PRETTY_NAME=") }) {
            distribution = line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        var names = utsname()
        uname(&names)
        let release = withUnsafeBytes(of: names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(distribution); kernel \(release)"
    }
}
