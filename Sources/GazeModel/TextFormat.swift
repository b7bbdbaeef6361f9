import Foundation

/// Numbers and times in text, the same whatever the locale: what figures' legends and the
/// command line's tables print.
public enum TextFormat {
    /// `2020-07-24T21:40:43.445Z` for Unix seconds.
    public static func isoTime(_ seconds: Double) -> String {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        let millis = Int(((seconds - seconds.rounded(.down)) * 1000).rounded(.down))
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                      Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), millis)
    }

    /// A number with fixed decimals and `.` as separator whatever the locale; never "-0.0".
    public static func fixed(_ value: Double, _ decimals: Int) -> String {
        let text = String(format: "%.\(decimals)f", locale: nil, value)
        return text.hasPrefix("-") && Double(text) == 0 ? String(text.dropFirst()) : text
    }
}
