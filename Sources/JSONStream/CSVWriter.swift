import Foundation

/// The one CSV writer of every table gazerec writes (session exports, per-frame features,
/// fixations, stimulus tables): RFC 4180 with one quoting rule, `,` between fields, `\n` after
/// each row, `.` as decimal separator.
///
/// A field holding a comma, a double quote or a line break (CR or LF) is written between double
/// quotes with each inner quote doubled; every other field is written as it is. Numbers are
/// written in their shortest round-trip form (`JSONWriter.number`), or as text a caller formatted
/// with fixed decimals. Structure is the caller's: `field`/`number`, `separator()` between fields,
/// `endRow()` after each row; or whole rows with `row(_:)`. Buffered: `flush()` when done.
///
/// THREAD SAFETY: one thread at a time, as `JSONWriter`.
public final class CSVWriter {
    @usableFromInline let out: JSONWriter

    public init(sink: ByteSink) {
        out = JSONWriter(sink: sink)
    }

    /// The rule: `text` as one field, quoted when it holds a comma, a quote or a line break.
    public static func quoted(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `cells` as one row (each quoted by the rule), its line break included.
    public static func line(_ cells: [String]) -> String {
        cells.map(quoted).joined(separator: ",") + "\n"
    }

    /// A field of free text, quoted by the rule.
    public func field(_ text: String) throws {
        try fieldQuoted(Self.quoted(text))
    }

    /// A field already quoted by the rule (`quoted(_:)`), or text that never needs quoting (a
    /// closed vocabulary, a number formatted by the caller); several fields with their commas may
    /// be given at once.
    public func fieldQuoted(_ text: String) throws {
        var text = text
        try text.withUTF8 { try out.rawBytes($0) }
    }

    /// A number field in its shortest round-trip form (finite values only).
    @inlinable
    public func number(_ value: Double) throws { try out.number(value) }

    /// The comma between two fields.
    @inlinable
    public func separator() throws { try out.byte(0x2C) }

    /// The end of a row.
    @inlinable
    public func endRow() throws { try out.byte(0x0A) }

    /// One whole row of `cells`, each quoted by the rule.
    public func row(_ cells: [String]) throws {
        try fieldQuoted(Self.line(cells))
    }

    /// Sends the buffered bytes to the sink.
    public func flush() throws { try out.flush() }
}
