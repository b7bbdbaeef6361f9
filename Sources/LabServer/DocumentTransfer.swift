import ContentDigest
import Foundation
import JSONStream

/// Rows in PostgreSQL's binary COPY format: a header, per row the field count and each field as
/// a length and its bytes in network order, and a trailer. Values go as they are, with no text
/// escaping (a `bytea` as its raw bytes, a `double precision` as its 8 IEEE bytes).
struct BinaryCopyRows {
    private(set) var bytes: [UInt8] = []

    /// The stream's header; start with it.
    static let header: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]
    /// The stream's trailer; end with it.
    static let trailer: [UInt8] = [0xFF, 0xFF]

    init(reservingCapacity capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    mutating func beginRow(fields: Int16) { append(UInt16(bitPattern: fields)) }

    mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            append(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func int32(_ value: Int32) {
        append(UInt32(4))
        append(UInt32(bitPattern: value))
    }

    mutating func float64(_ value: Double) {
        append(UInt32(8))
        append(value.bitPattern)
    }

    /// A field's length only, for a value sent right after these bytes.
    mutating func fieldLength(_ count: Int) { append(UInt32(count)) }

    private mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}

/// A session document streamed into `session_document` rows as it is written: parts of at most
/// `partSize` bytes, each a binary COPY row sent at once, and the digest and length of the whole,
/// so neither side ever holds the document.
final class DocumentPartWriter: ByteSink {
    static let partSize = 1 << 20

    private let sessionID: String
    private let put: (UnsafeRawBufferPointer) throws -> Void
    private let digest = DigestSink()
    private let part = UnsafeMutableRawBufferPointer.allocate(byteCount: DocumentPartWriter.partSize, alignment: 16)
    private var filled = 0
    private var parts: Int32 = 0
    private var rowHeader = BinaryCopyRows(reservingCapacity: 64)

    init(sessionID: String, put: @escaping (UnsafeRawBufferPointer) throws -> Void) throws {
        self.sessionID = sessionID
        self.put = put
        try BinaryCopyRows.header.withUnsafeBytes { try put($0) }
    }

    deinit { part.deallocate() }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try digest.write(bytes)
        var offset = 0
        while offset < bytes.count {
            let count = min(bytes.count - offset, part.count - filled)
            UnsafeMutableRawBufferPointer(rebasing: part[filled..<filled + count])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
            filled += count
            offset += count
            if filled == part.count { try sendPart() }
        }
    }

    /// Sends what is left and the trailer; returns the document's SHA-256 and length.
    func finish() throws -> (sha256: [UInt8], length: Int) {
        if filled > 0 || parts == 0 { try sendPart() }
        try BinaryCopyRows.trailer.withUnsafeBytes { try put($0) }
        return digest.finish()
    }

    private func sendPart() throws {
        rowHeader.removeAll()
        rowHeader.beginRow(fields: 3)
        rowHeader.text(sessionID)
        rowHeader.int32(parts)
        rowHeader.fieldLength(filled)
        try rowHeader.bytes.withUnsafeBytes { try put($0) }
        try put(UnsafeRawBufferPointer(rebasing: part[0..<filled]))
        parts += 1
        filled = 0
    }
}

/// A sink that only digests: the SHA-256 and length of a document nobody needs to keep.
final class DigestSink: ByteSink {
    private let digest = SHA256Digest()
    private(set) var length = 0

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        digest.update(bytes)
        length += bytes.count
    }

    func finish() -> (sha256: [UInt8], length: Int) { (digest.finish(), length) }
}

/// A stored session document read back part by part, as a chunked JSON source: one part (at
/// most a mebibyte as pushed) in memory at a time.
final class StoredDocumentChunks: JSONChunkSource, @unchecked Sendable {
    private let connection: PostgresConnection
    private let sessionID: String
    private var next = 0

    init(connection: PostgresConnection, sessionID: String) {
        self.connection = connection
        self.sessionID = sessionID
    }

    func nextChunk() throws -> [UInt8]? {
        guard let part = try LabDatabase.documentPart(next, sessionID: sessionID, on: connection) else { return nil }
        next += 1
        return [UInt8](part)
    }
}
