import Foundation

/// A lab's PostgreSQL server holding the sessions and calibrations its stations push.
///
/// WHAT THIS OBJECT REPRESENTS
///   The server side of a lab: a versioned schema (`gazerec_schema`), a `session` row per session
///   with the station that recorded it and its EyeTracking JSON document (the bytes `gazerec export`
///   writes for it, so reading it back gives the station's export byte for byte), its scan path as
///   rows (`gaze_sample`, for SQL), and a `calibration` row per calibration document.
///   Each push of a session is one transaction: the server has it whole or not at all.
/// ROLES
///   `gazerec_station` may read and insert; `gazerec_analysis` may also replace and delete. The
///   schema's owner (the analysis role) creates or migrates it; grants go to whichever of the
///   two roles exist (docs/Lab.md).
public final class LabServer {
    public static let schemaVersion = 1
    public let connection: PostgresConnection

    /// Connects and brings the schema up to date (creating it on an empty database, when allowed).
    public init(address: String) throws {
        connection = try PostgresConnection(address: address)
        try migrate()
    }

    private func migrate() throws {
        let present = try connection.query("SELECT to_regclass('gazerec_schema') IS NOT NULL").values.first?.first == "t"
        var version = 0
        if present {
            version = Int(try connection.query("SELECT COALESCE(MAX(version), 0) FROM gazerec_schema").values.first?.first.flatMap { $0 } ?? "0") ?? 0
        }
        if version > Self.schemaVersion { throw LabServerError.newerSchema(version: version, known: Self.schemaVersion) }
        guard version < Self.schemaVersion else { return }
        do {
            try connection.transaction {
                // Two stations migrating at once: the second waits, then finds the work done.
                try connection.query("SELECT pg_advisory_xact_lock(724513)")
                try connection.query("CREATE TABLE IF NOT EXISTS gazerec_schema (version integer PRIMARY KEY, "
                                     + "applied_at timestamptz NOT NULL DEFAULT now())")
                let current = Int(try connection.query("SELECT COALESCE(MAX(version), 0) FROM gazerec_schema")
                    .values.first?.first.flatMap { $0 } ?? "0") ?? 0
                if current < 1 { try migration1() }
            }
        } catch LabServerError.statement(let state, let reason) where state == "42501" {
            throw LabServerError.notPermitted(reason: "the server has no gazerec schema yet and this role may not create "
                                              + "it (\(reason)); connect once as the analysis role")
        }
    }

    private func migration1() throws {
        try connection.query("""
            CREATE TABLE session (
                id text PRIMARY KEY,
                app_id text NOT NULL,
                begin_time double precision NOT NULL,
                end_time double precision,
                station text,
                host text NOT NULL,
                pushed_at timestamptz NOT NULL DEFAULT now(),
                pushed_by text NOT NULL DEFAULT current_user,
                gaze_samples integer NOT NULL,
                document bytea NOT NULL
            )
            """)
        try connection.query("""
            CREATE TABLE gaze_sample (
                session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE,
                seq integer NOT NULL,
                timestamp double precision NOT NULL,
                x double precision NOT NULL,
                y double precision NOT NULL,
                tracking_state text NOT NULL,
                PRIMARY KEY (session_id, seq)
            )
            """)
        try connection.query("""
            CREATE TABLE calibration (
                id text PRIMARY KEY,
                station text,
                host text NOT NULL,
                pushed_at timestamptz NOT NULL DEFAULT now(),
                document bytea NOT NULL
            )
            """)
        try connection.query("""
            DO $$ BEGIN
                IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'gazerec_station') THEN
                    GRANT SELECT, INSERT ON session, gaze_sample, calibration TO gazerec_station;
                    GRANT SELECT ON gazerec_schema TO gazerec_station;
                END IF;
                IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'gazerec_analysis') THEN
                    GRANT SELECT, INSERT, UPDATE, DELETE ON session, gaze_sample, calibration TO gazerec_analysis;
                    GRANT SELECT ON gazerec_schema TO gazerec_analysis;
                END IF;
            END $$
            """)
        try connection.query("INSERT INTO gazerec_schema (version) VALUES (1)")
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

    /// A session as a station pushes it.
    public struct SessionUpload {
        public var id: String
        public var appID: String
        public var beginTimeSeconds: Double
        public var endTimeSeconds: Double?
        /// The session's EyeTracking JSON, as `gazerec export ID` writes it.
        public var document: Data
        public var gazeSamples: Int
        /// Text COPY blocks of its scan path: `seq`, `timestamp`, `x`, `y`, `tracking_state` a line.
        public var gazeRows: () throws -> Data?

        public init(id: String, appID: String, beginTimeSeconds: Double, endTimeSeconds: Double?, document: Data,
                    gazeSamples: Int, gazeRows: @escaping () throws -> Data?) {
            self.id = id
            self.appID = appID
            self.beginTimeSeconds = beginTimeSeconds
            self.endTimeSeconds = endTimeSeconds
            self.document = document
            self.gazeSamples = gazeSamples
            self.gazeRows = gazeRows
        }
    }

    /// Sends one session in one transaction: skipped when the server has the same document,
    /// refused when it has another (unless `replace`, which needs a role that may delete).
    public func push(_ upload: SessionUpload, station: String?, host: String, replace: Bool) throws -> Outcome {
        try store(table: "session", id: upload.id, document: upload.document, replace: replace) {
            try connection.query("""
                INSERT INTO session (id, app_id, begin_time, end_time, station, host, gaze_samples, document)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                """, values: [.text(upload.id), .text(upload.appID), .text(String(upload.beginTimeSeconds)),
                              upload.endTimeSeconds.map { .text(String($0)) } ?? .null, station.map { .text($0) } ?? .null,
                              .text(host), .text(String(upload.gazeSamples)), .binary(upload.document)])
            try connection.copy(into: "gaze_sample", columns: ["session_id", "seq", "timestamp", "x", "y", "tracking_state"],
                                chunks: upload.gazeRows)
        }
    }

    /// Sends one calibration document (same rules as sessions).
    public func pushCalibration(id: String, document: Data, station: String?, host: String, replace: Bool) throws -> Outcome {
        try store(table: "calibration", id: id, document: document, replace: replace) {
            try connection.query("INSERT INTO calibration (id, station, host, document) VALUES ($1, $2, $3, $4)",
                                 values: [.text(id), station.map { .text($0) } ?? .null, .text(host), .binary(document)])
        }
    }

    /// The rule both pushes follow, in one transaction under a lock on the id (two stations pushing
    /// the same id: the second waits for the first): the same document is left, another is an
    /// error unless `replace` (then deleted first), and `insert` adds the new one.
    private func store(table: String, id: String, document: Data, replace: Bool, insert: () throws -> Void) throws -> Outcome {
        try permitted {
            try connection.transaction {
                try connection.query("SELECT pg_advisory_xact_lock(hashtext($1))", [table + " " + id])
                let existing = try connection.query("SELECT document = $2 FROM \(table) WHERE id = $1",
                                                    values: [.text(id), .binary(document)])
                var outcome = Outcome.added
                if let row = existing.values.first {
                    if row.first.flatMap({ $0 }) == "t" { return .unchanged }
                    guard replace else { throw LabServerError.conflict(sessionID: table == "session" ? id : "\(table) \(id)") }
                    try connection.query("DELETE FROM \(table) WHERE id = $1", [id])
                    outcome = .replaced
                }
                try insert()
                return outcome
            }
        }
    }

    /// Session documents, oldest first: all, or those whose id is in `ids`.
    public func sessionDocuments(ids: [String]? = nil) throws -> [Data] {
        if let ids {
            return try connection.binaryColumn("SELECT document FROM session WHERE id = ANY($1::text[]) ORDER BY begin_time, id",
                                               ["{" + ids.map { "\"\($0)\"" }.joined(separator: ",") + "}"])
        }
        return try connection.binaryColumn("SELECT document FROM session ORDER BY begin_time, id", [])
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
