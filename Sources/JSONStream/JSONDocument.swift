/// The one way a JSON document is written whole (a report, a status file, a sidecar, a
/// calibration): a `JSONValue` tree — or an `Encodable` value made into one by `JSONValueEncoder`
/// — through `JSONWriter`, compact or pretty (two-space indents), with a line break after it or not.
///
/// Streams of samples are written member by member with `JSONWriter` itself; everything written
/// whole goes through here, so every document gazerec writes spells numbers, strings and
/// indentation the same way.
public enum JSONDocument {
    /// `value` as the bytes of a document.
    public static func bytes(_ value: JSONValue, pretty: Bool = true, lineBreak: Bool = true) throws -> [UInt8] {
        let sink = MemoryByteSink()
        try write(value, to: sink, pretty: pretty, lineBreak: lineBreak)
        return sink.bytes
    }

    /// `value` as the text of a document.
    public static func text(_ value: JSONValue, pretty: Bool = true, lineBreak: Bool = true) throws -> String {
        String(decoding: try bytes(value, pretty: pretty, lineBreak: lineBreak), as: UTF8.self)
    }

    /// An `Encodable` value (its synthesized or written `encode(to:)`) as the bytes of a document.
    public static func bytes(encoding value: some Encodable, pretty: Bool = true, lineBreak: Bool = true) throws -> [UInt8] {
        try bytes(try JSONValueEncoder().encode(value), pretty: pretty, lineBreak: lineBreak)
    }

    /// An `Encodable` value as the text of a document.
    public static func text(encoding value: some Encodable, pretty: Bool = true, lineBreak: Bool = true) throws -> String {
        try text(try JSONValueEncoder().encode(value), pretty: pretty, lineBreak: lineBreak)
    }

    /// `value` written into `sink` as a document.
    public static func write(_ value: JSONValue, to sink: ByteSink, pretty: Bool = true, lineBreak: Bool = true) throws {
        let writer = JSONWriter(sink: sink, pretty: pretty)
        try writer.value(value)
        if lineBreak { try writer.byte(0x0A) }
        try writer.flush()
    }
}
