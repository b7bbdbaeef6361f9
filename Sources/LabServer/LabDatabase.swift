import Foundation
import JSONStream
import SessionStore

/// A lab's PostgreSQL server holding the sessions and calibrations its stations push.
///
/// WHAT THIS OBJECT REPRESENTS
///   The server side of a lab: a versioned schema (`gazerec_schema`), a `session` row per session
///   with the station that recorded it and the SHA-256 of its EyeTracking JSON document, the
///   document itself in mebibyte parts (`session_document`: the bytes `gazerec export` writes for
///   it, so reading it back gives the station's export byte for byte), its scan path as rows
///   (`gaze_sample`, for SQL), and a `calibration` row per calibration document.
///   Each push of a session is one transaction: the server has it whole or not at all.
/// ROLES
///   One login role per station and per analyst, members of `gazerec_stations` and
///   `gazerec_analysts` (`LabAdministration`). The server records who pushed (the login role) and
///   enforces what each may do (`LabSchema`): a station adds its own sessions and reads only those;
///   an analyst reads, replaces and deletes any.
public final class LabDatabase {
    public typealias Rows = PostgresConnection.Rows
    public static let schemaVersion = LabSchema.version
    public let connection: PostgresConnection

    /// Connects, as a station or an analyst, to a database whose schema the lab's admin has set up
    /// at this gazerec's version (`LabAdministration.setUp`).
    public init(address: String) throws {
        connection = try PostgresConnection(address: address)
        try LabSchema.requireCurrent(connection)
    }


    /// What a push did to one session or calibration.
    public enum Outcome: String, Sendable {
        /// New on the server.
        case added
        /// Already there with the same document: nothing was sent again.
        case unchanged
        /// There with another document, replaced.
        case replaced
    }

    /// Sends one session of a station's database in one transaction: skipped when the server has
    /// the same document, refused when it has another (unless `replace`, which needs a role that
    /// may delete). The document (the bytes `gazerec export ID` writes) streams from the export
    /// into parts as it is written, digested on the way; the scan path follows as rows.
    public func push(sessionID id: String, from database: SessionDatabase, host: String, replace: Bool) throws -> Outcome {
        let summary = try database.summary(id: id)
        return try store(table: "session", id: id, storedDigest: "document_sha256", replace: replace, digest: {
            let sink = DigestSink()
            try database.export(ids: [id], asArray: false, to: sink)
            return sink.finish().sha256
        }, insert: {
            var document: (sha256: [UInt8], length: Int) = ([], 0)
            try connection.copyIn("COPY session_document (session_id, part, bytes) FROM STDIN (FORMAT binary)") { put in
                let writer = try DocumentPartWriter(sessionID: id, put: put)
                try database.export(ids: [id], asArray: false, to: writer)
                document = try writer.finish()
            }
            let samples = try database.scanPath(id: id).samples
            try connection.query("""
                INSERT INTO session (id, app_id, begin_time, end_time, host, gaze_samples, document_sha256, document_bytes,
                                     calibration_id)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                """, values: [.text(id), .text(summary.header.appID), .text(String(summary.header.beginTimeSeconds)),
                              summary.header.endTimeSeconds.map { .text(String($0)) } ?? .null,
                              .text(host), .text(String(samples.count)),
                              .binary(Data(document.sha256)), .text(String(document.length)),
                              summary.header.gazerecExtension?.calibration.map { .text($0.id.uppercased()) } ?? .null])
            try connection.copyIn("""
                COPY gaze_sample (session_id, seq, timestamp, x, y, tracking_state) FROM STDIN (FORMAT binary)
                """) { put in
                var rows = BinaryCopyRows(reservingCapacity: 1 << 20)
                try BinaryCopyRows.header.withUnsafeBytes { try put($0) }
                for (seq, sample) in samples.enumerated() {
                    rows.beginRow(fields: 6)
                    rows.text(id)
                    rows.int32(Int32(seq))
                    rows.float64(sample.timestampSeconds)
                    rows.float64(sample.x)
                    rows.float64(sample.y)
                    rows.text(sample.trackingState.rawValue)
                    if rows.bytes.count >= 1 << 20 {
                        try rows.bytes.withUnsafeBytes { try put($0) }
                        rows.removeAll()
                    }
                }
                try (rows.bytes + BinaryCopyRows.trailer).withUnsafeBytes { try put($0) }
            }
        })
    }

    /// Sends one calibration document (same rules as sessions).
    public func pushCalibration(id: String, document: Data, host: String, replace: Bool) throws -> Outcome {
        try store(table: "calibration", id: id, storedDigest: "sha256(document)", replace: replace, digest: {
            let sink = DigestSink()
            try document.withUnsafeBytes { try sink.write($0) }
            return sink.finish().sha256
        }, insert: {
            try connection.query("INSERT INTO calibration (id, host, document) VALUES ($1, $2, $3)",
                                 values: [.text(id), .text(host), .binary(document)])
        })
    }

    /// The rule both pushes follow, in one transaction under a lock on the id (two stations pushing
    /// the same id: the second waits for the first): a stored document with the same SHA-256
    /// (`storedDigest`, an SQL expression, against `digest()`) is left, another is an error unless
    /// `replace` (then deleted first), and `insert` adds the new one. Who pushed each row is the
    /// server's to record (`LabSchema`), not the client's to say. An id the role cannot see but the
    /// server has (another station's) fails on its unique key.
    private func store(table: String, id: String, storedDigest: String, replace: Bool, digest: () throws -> [UInt8],
                       insert: () throws -> Void) throws -> Outcome {
        do {
            return try storeOnce(table: table, id: id, storedDigest: storedDigest, replace: replace, digest: digest,
                                 insert: insert)
        } catch LabServerError.statement(let state, _) where state == "23505" {
            throw LabServerError.pushedByAnotherRole(sessionID: table == "session" ? id : "\(table) \(id)")
        } catch LabServerError.statement(let state, let reason) where state == LabSchema.withdrawnState {
            throw LabServerError.withdrawn(kind: table, id: id, reason: reason)
        }
    }

    private func storeOnce(table: String, id: String, storedDigest: String, replace: Bool, digest: () throws -> [UInt8],
                           insert: () throws -> Void) throws -> Outcome {
        try permitted {
            try connection.transaction {
                try connection.query("SELECT pg_advisory_xact_lock(hashtext($1))", [table + " " + id])
                // Refused before anything is sent; the server's trigger refuses the insert all the same.
                try connection.query("SELECT gazerec_refuse_withdrawn($1, $2)", [table, id])
                let existing = try connection.binaryColumn("SELECT \(storedDigest) FROM \(table) WHERE id = $1", [id])
                var outcome = Outcome.added
                if let stored = existing.first {
                    if [UInt8](stored) == (try digest()) { return .unchanged }
                    guard replace else { throw LabServerError.conflict(sessionID: table == "session" ? id : "\(table) \(id)") }
                    try connection.query("DELETE FROM \(table) WHERE id = $1", [id])
                    outcome = .replaced
                }
                try insert()
                return outcome
            }
        }
    }

    /// The ids of the stored sessions, oldest first.
    public func sessionIDs() throws -> [String] {
        try connection.query("SELECT id FROM session ORDER BY begin_time, id COLLATE \"C\"").values.compactMap { $0.first ?? nil }
    }

    /// The ids of the stored sessions that begin with any of `prefixes` (case-insensitive), oldest
    /// first: every session a station would consider for these ids or prefixes, so an ambiguous
    /// prefix stays ambiguous.
    public func sessionIDs(matchingPrefixes prefixes: [String]) throws -> [String] {
        // LIKE's own characters in a given id match themselves (backslash is LIKE's escape).
        let patterns = prefixes.map { prefix in
            prefix.uppercased().replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_") + "%"
        }
        return try connection.query("""
            SELECT id FROM session WHERE upper(id) LIKE ANY(string_to_array($1, E'\\n')) ORDER BY begin_time, id COLLATE "C"
            """, [patterns.joined(separator: "\n")]).values.compactMap { $0.first ?? nil }
    }

    /// The sessions `names` stand for, by a station's rule: an exact id (case-insensitive), else a
    /// prefix of at least four characters that fits exactly one session.
    public func resolveSessionIDs(_ names: [String]) throws -> [String] {
        let candidates = try sessionIDs(matchingPrefixes: names)
        return try names.map { name in
            let key = name.uppercased()
            if let exact = candidates.first(where: { $0.uppercased() == key }) { return exact }
            let prefixable = key.count >= 4 && key.count < 36 && key.allSatisfy { $0.isHexDigit || $0 == "-" }
            let matches = prefixable ? candidates.filter { $0.uppercased().hasPrefix(key) }.sorted() : []
            if matches.count > 1 { throw StoreError.ambiguousSession(prefix: name, matches: Array(matches.prefix(5))) }
            guard let match = matches.first else { throw StoreError.unknownSession(id: name, databasePath: connection.address) }
            return match
        }
    }

    /// Writes stored documents as `gazerec export` writes those sessions on their station (compact
    /// camelCase JSON with gazerec's extension, each document the bytes the station pushed): one
    /// document, or an array of them. Streams part by part (call within `reading`).
    public func writeDocuments(sessionIDs ids: [String], asArray: Bool, to sink: ByteSink) throws {
        func put(_ text: String) throws { try Array(text.utf8).withUnsafeBytes { try sink.write($0) } }
        if asArray { try put("[") }
        for (index, id) in ids.enumerated() {
            if asArray && index > 0 { try put(",") }
            // One part held back, so the document's final newline can be left out inside an array.
            let parts = StoredDocumentChunks(connection: connection, sessionID: id)
            var pending = try parts.nextChunk()
            while let part = pending {
                let next = try parts.nextChunk()
                let keep = next == nil && asArray && part.last == 0x0A ? part.count - 1 : part.count
                try part.withUnsafeBytes { try sink.write(UnsafeRawBufferPointer(rebasing: $0[0..<keep])) }
                pending = next
            }
        }
        if asArray { try put("]\n") }
    }

    /// Part `part` (0-based) of a stored session's document; nil past its last part.
    static func documentPart(_ part: Int, sessionID: String, on connection: PostgresConnection) throws -> Data? {
        try connection.binaryColumn("SELECT bytes FROM session_document WHERE session_id = $1 AND part = $2",
                                    [sessionID, String(part)]).first
    }

    /// A stored session's document as a JSON source read part by part (call within `reading`).
    public func document(sessionID: String) -> JSONSource {
        .chunks(StoredDocumentChunks(connection: connection, sessionID: sessionID),
                name: "session \(sessionID) on \(connection.address)")
    }

    /// Runs `body` in one read-only snapshot of the server: sessions pushed meanwhile are either
    /// wholly seen or not at all.
    public func reading<T>(_ body: () throws -> T) throws -> T {
        try connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        defer { _ = try? connection.query("COMMIT") }
        return try body()
    }

    /// Every calibration document.
    public func calibrationDocuments() throws -> [Data] {
        try connection.binaryColumn("SELECT document FROM calibration ORDER BY id", [])
    }

    /// Maps the server's "insufficient privilege" to a sentence about roles.
    private func permitted<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch LabServerError.statement(let state, let reason) where state == "42501" {
            throw LabServerError.notPermitted(reason: reason)
        }
    }
}
