import Foundation

/// The start of a `push --since` window, as a researcher writes it: an ISO 8601 time, a day, Unix
/// seconds, or a duration back from now.
///
/// A time without a zone is UTC, like the day form and every time gazerec prints (`list`'s begin
/// times), so a time copied from `list` selects that session; add `Z` or an offset (`+01:00`) for
/// another zone.
enum SinceTime {
    /// Unix seconds of `text`, or nil when it is none of the accepted forms.
    static func seconds(_ text: String, now: Date = Date()) -> Double? {
        if let seconds = Double(text), seconds >= 0, seconds.isFinite { return seconds }
        if let duration = durationSeconds(text) { return now.timeIntervalSince1970 - duration }
        return isoSeconds(text)
    }

    /// `90s`, `45m`, `2h`, `7d` (or several: `1h30m`).
    static func durationSeconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        var total = 0.0
        var digits = ""
        for character in text {
            if character.isASCII && character.isNumber {
                digits.append(character)
            } else if let unit = units[character], let value = Double(digits) {
                total += value * unit
                digits = ""
            } else {
                return nil
            }
        }
        return digits.isEmpty && !text.isEmpty ? total : nil
    }

    /// `2026-11-24`, `2026-11-24T09:00`, `2026-11-24T09:00:30`, `2026-11-24T09:00:30.5`, each with an
    /// optional zone (`Z`, `+01:00`, `+0100`, `+01`); a space may stand for the `T`.
    static func isoSeconds(_ text: String) -> Double? {
        let pattern = #/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/#
        guard let match = text.wholeMatch(of: pattern) else { return nil }
        var parts = DateComponents()
        parts.calendar = Calendar(identifier: .gregorian)
        parts.timeZone = TimeZone(identifier: "UTC")
        (parts.year, parts.month, parts.day) = (Int(match.1), Int(match.2), Int(match.3))
        parts.hour = match.4.flatMap { Int($0) } ?? 0
        parts.minute = match.5.flatMap { Int($0) } ?? 0
        parts.second = match.6.flatMap { Int($0) } ?? 0
        guard parts.isValidDate, (parts.hour ?? 0) < 24, (parts.minute ?? 0) < 60, (parts.second ?? 0) < 61,
              let date = parts.date else { return nil }
        let fraction = match.7.flatMap { Double("0" + $0) } ?? 0
        return date.timeIntervalSince1970 + fraction - (match.8.map { offsetSeconds(String($0)) } ?? 0)
    }

    /// `Z` → 0, `+01:00`/`+0100`/`+01` → 3600, `-05:30` → −19800.
    private static func offsetSeconds(_ zone: String) -> Double {
        guard zone != "Z" else { return 0 }
        let sign: Double = zone.hasPrefix("-") ? -1 : 1
        let digits = zone.dropFirst().filter(\.isNumber)
        let hours = Double(digits.prefix(2)) ?? 0
        let minutes = Double(digits.dropFirst(2)) ?? 0
        return sign * (hours * 3600 + minutes * 60)
    }
}
