/// The rule every stored label and identifier a person or program types follows: marker labels,
/// a session's app id, a calibration's name.
///
/// Such text lands in one-line outputs (tables, CSV cells, BIDS event files, LSL marker strings), so
/// it may hold no control character (Unicode category Cc: U+0000–U+001F and U+007F–U+009F, which
/// includes NUL, tab, line feed and carriage return), and it is at most
/// `maximumCharacters` characters (Unicode scalars) long. A refusal quotes at most
/// `excerptCharacters` characters of the text, never the whole of it.
public enum LabelRule {
    /// The longest label, in Unicode scalars.
    public static let maximumCharacters = 1_000
    /// How much of a refused label a message quotes.
    public static let excerptCharacters = 40

    /// Why `text` cannot be stored as a label, or nil when it can.
    public static func problem(_ text: String) -> LabelProblem? {
        var count = 0
        for scalar in text.unicodeScalars {
            count += 1
            if isControl(scalar) {
                return .controlCharacter(scalar: scalar.value, position: count,
                                         before: String(String.UnicodeScalarView(text.unicodeScalars.prefix(count - 1).suffix(excerptCharacters))))
            }
        }
        guard count <= maximumCharacters else {
            return .tooLong(characters: count, beginning: String(String.UnicodeScalarView(text.unicodeScalars.prefix(excerptCharacters))))
        }
        return nil
    }

    /// Whether `scalar` is a control character (general category Cc).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}

/// What is wrong with a label, as data and a sentence that quotes only a short excerpt of it.
public enum LabelProblem: Sendable, Equatable, CustomStringConvertible {
    /// A control character at 1-based `position` (in Unicode scalars); `before` is the text just before it.
    case controlCharacter(scalar: UInt32, position: Int, before: String)
    /// Longer than `LabelRule.maximumCharacters`; `beginning` is its start.
    case tooLong(characters: Int, beginning: String)

    public var description: String {
        switch self {
        case let .controlCharacter(scalar, position, before):
            let after = before.isEmpty ? "" : " (after '\(before.unicodeScalars.count == LabelRule.excerptCharacters ? "…" : "")\(before)')"
            return "contains a control character (\(Self.name(scalar))) at character \(position)\(after); "
                + "labels are one line of printable text"
        case let .tooLong(characters, beginning):
            return "is \(characters) characters long; the limit is \(LabelRule.maximumCharacters) (it begins '\(beginning)…')"
        }
    }

    /// `U+0009, tab`: the code point, and the character's name when it has a common one.
    static func name(_ scalar: UInt32) -> String {
        let hex = String(scalar, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        let names: [UInt32: String] = [0x00: "NUL", 0x09: "tab", 0x0A: "line feed", 0x0D: "carriage return", 0x1B: "escape",
                                       0x7F: "delete"]
        return names[scalar].map { "\(code), \($0)" } ?? code
    }
}
