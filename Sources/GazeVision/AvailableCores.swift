import Foundation

/// How many cores this process may run on: its CPU affinity (`taskset`, a container's cpuset), as
/// Linux reports it in `/proc/self/status`, not the machine's count. Stages overlapped on threads
/// gain nothing on one core and lose the hand-overs, so the pipelines run in line there.
public enum AvailableCores {
    /// At least 1; the machine's count where the affinity cannot be read.
    public static let count: Int = affinity() ?? max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// The cores in `Cpus_allowed`, a hexadecimal mask in comma-separated groups of 32 bits.
    static func affinity(status: String? = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) -> Int? {
        guard let line = status?.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        let mask = line.dropFirst("Cpus_allowed:".count).trimmingCharacters(in: .whitespaces)
        var cores = 0
        for digit in mask where digit != "," {
            guard let value = digit.hexDigitValue else { return nil }
            cores += value.nonzeroBitCount
        }
        return cores > 0 ? cores : nil
    }
}
