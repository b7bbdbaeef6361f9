import Foundation

/// Numbers and times in text, the same whatever the locale: what figures' legends and the
/// command line's tables print.
public enum TextFormat {
    /// `2020-07-24T21:40:43.445Z` for Unix seconds; a value that is no date with a four-digit year
    /// (not finite, or beyond ±253402300799 s, the end of year 9999: a damaged or nanosecond time)
    /// is written as the number it is (`1e+19 s, not a date`), never as a made-up date.
    public static func isoTime(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) <= 253_402_300_799 else { return "\(seconds) s, not a date" }
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
