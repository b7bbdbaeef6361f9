import Foundation
import SessionStore

/// Which sessions an erasure is about.
public enum LabErasureRequest: Sendable, Equatable {
    /// Session ids (or prefixes of at least 4 characters naming one); an id naming no session may
    /// name a calibration, which is erased alone.
    case ids([String])
    /// Every session recorded under this app id (the participant's label), and the calibrations
    /// named after it.
    case appID(String)
}

/// What an erasure removed from the server; every id in it is now kept as withdrawn.
public struct LabErasure: Sendable, Equatable {
    /// The sessions erased, with their documents and scan paths.
    public var sessionIDs: [String] = []
    /// The calibrations erased: those only the erased sessions used, those named after the app id,
    /// and those named directly.
    public var calibrationIDs: [String] = []
    /// Ids asked for that were withdrawn before (nothing left to remove).
    public var alreadyWithdrawn: [String] = []
    /// The erased calibrations that also mapped sessions the erasure kept (a calibration named after
    /// the app id, or named directly, is erased even so), each with those sessions' ids: their gaze
    /// stays as mapped, but the calibration is no longer on the server.
    public var sharedWithKeptSessions: [String: [String]] = [:]
}

extension LabAdministration {
    /// Erases a participant from the server in one transaction: every row of the chosen sessions
    /// (their documents and scan paths), the calibrations only they used (and, for an app id, the
    /// calibrations named after it), and keeps their ids as withdrawn (`withdrawal`: kind, id and
    /// time), so that the server refuses any later push of them. Needs an administrator.
    public func erase(_ request: LabErasureRequest) throws -> LabErasure {
        try LabSchema.requireCurrent(connection)
        let erasure = try administering {
            try connection.transaction {
                // Erasures one at a time; a push of the same id waits for this one (the push's lock).
                try connection.query("SELECT pg_advisory_xact_lock(724514)")
                var erasure = try chosen(request)
                for id in erasure.sessionIDs {
                    try connection.query("SELECT pg_advisory_xact_lock(hashtext($1))", ["session " + id])
                }
                erasure.calibrationIDs += try calibrationsUsedOnlyBy(erasure.sessionIDs)
                    .filter { !erasure.calibrationIDs.contains($0) }
                erasure.sharedWithKeptSessions = try sessions(using: erasure.calibrationIDs, except: erasure.sessionIDs)
                try withdraw("session", erasure.sessionIDs)
                try withdraw("calibration", erasure.calibrationIDs)
                return erasure
            }
        }
        try administering { try vacuum(after: erasure) }
        return erasure
    }

    /// Rewrites the tables the erasure deleted rows from, after its transaction (VACUUM cannot run
    /// inside one): a DELETE only marks rows dead, and their bytes (the documents' TOAST, the scan
    /// path, the ids in the indexes) stay in the table's files until a vacuum. `VACUUM FULL`
    /// writes each table and its indexes anew without them and drops the old files at the next
    /// checkpoint; `ANALYZE` replaces the planner's statistics, which may quote erased ids. It
    /// locks each table while it is rewritten (pushes wait). What stays elsewhere (the WAL, base
    /// backups) is in docs/Lab.md.
    private func vacuum(after erasure: LabErasure) throws {
        var tables: [String] = []
        if !erasure.sessionIDs.isEmpty { tables += ["session", "session_document", "gaze_sample"] }
        if !erasure.calibrationIDs.isEmpty { tables.append("calibration") }
        guard !tables.isEmpty else { return }
        try connection.query("VACUUM (FULL, ANALYZE) \(tables.joined(separator: ", "))")
        // The statistics replaced above live on as dead rows of the catalog that holds them.
        try connection.query("VACUUM FULL pg_statistic")
    }

    /// The sessions and calibrations `request` names on the server, and the ids already withdrawn.
    private func chosen(_ request: LabErasureRequest) throws -> LabErasure {
        var erasure = LabErasure()
        switch request {
        case .appID(let label):
            erasure.sessionIDs = try column("SELECT id FROM session WHERE app_id = $1 ORDER BY begin_time, id", [label])
            erasure.calibrationIDs = try column("""
                SELECT id FROM calibration WHERE convert_from(document, 'UTF8')::jsonb ->> 'name' = $1 ORDER BY id
                """, [label])
            if erasure.sessionIDs.isEmpty && erasure.calibrationIDs.isEmpty {
                throw LabServerError.noSessionsWithAppID(label: label, address: connection.address)
            }
        case .ids(let names):
            for name in names {
                if let id = try named(name, in: "session") {
                    if !erasure.sessionIDs.contains(id) { erasure.sessionIDs.append(id) }
                } else if let id = try named(name, in: "calibration") {
                    if !erasure.calibrationIDs.contains(id) { erasure.calibrationIDs.append(id) }
                } else if let id = try column("SELECT id FROM withdrawal WHERE upper(id) = upper($1) LIMIT 1", [name]).first {
                    erasure.alreadyWithdrawn.append(id)
                } else {
                    throw LabServerError.unknownToErase(id: name, address: connection.address)
                }
            }
        }
        return erasure
    }

    /// The id in `table` that `name` stands for: the id itself (case-insensitive), or a prefix of at
    /// least 4 characters that fits exactly one.
    private func named(_ name: String, in table: String) throws -> String? {
        if let exact = try column("SELECT id FROM \(table) WHERE upper(id) = upper($1)", [name]).first { return exact }
        guard name.count >= 4, name.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return nil }
        let matches = try column("SELECT id FROM \(table) WHERE upper(id) LIKE upper($1) || '%' ORDER BY id LIMIT 5", [name])
        if matches.count > 1 {
            throw table == "session" ? StoreError.ambiguousSession(prefix: name, matches: matches)
                : StoreError.ambiguousCalibration(prefix: name, matches: matches)
        }
        return matches.first
    }

    /// The stored calibrations that mapped some of `sessions` and no other session on the server.
    private func calibrationsUsedOnlyBy(_ sessions: [String]) throws -> [String] {
        try column("""
            SELECT DISTINCT s.calibration_id FROM session s JOIN calibration c ON c.id = s.calibration_id
            WHERE s.id = ANY(string_to_array($1, E'\\n'))
              AND NOT EXISTS (SELECT FROM session o WHERE o.calibration_id = s.calibration_id
                                                      AND o.id <> ALL(string_to_array($1, E'\\n')))
            ORDER BY 1
            """, [sessions.joined(separator: "\n")])
    }

    /// For each of `calibrations`, the sessions outside `except` that it mapped, oldest first.
    private func sessions(using calibrations: [String], except: [String]) throws -> [String: [String]] {
        guard !calibrations.isEmpty else { return [:] }
        let rows = try connection.query("""
            SELECT calibration_id, id FROM session
            WHERE calibration_id = ANY(string_to_array($1, E'\\n')) AND id <> ALL(string_to_array($2, E'\\n'))
            ORDER BY begin_time, id
            """, [calibrations.joined(separator: "\n"), except.joined(separator: "\n")]).values
        var found: [String: [String]] = [:]
        for row in rows {
            guard row.count == 2, let calibration = row[0], let session = row[1] else { continue }
            found[calibration, default: []].append(session)
        }
        return found
    }

    /// Deletes the rows of `ids` from `kind`'s table (a session's parts and scan path go with it)
    /// and keeps the ids as withdrawn.
    private func withdraw(_ kind: String, _ ids: [String]) throws {
        guard !ids.isEmpty else { return }
        let list = ids.joined(separator: "\n")
        try connection.query("DELETE FROM \(kind) WHERE id = ANY(string_to_array($1, E'\\n'))", [list])
        try connection.query("""
            INSERT INTO withdrawal (kind, id) SELECT $1, unnest(string_to_array($2, E'\\n')) ON CONFLICT DO NOTHING
            """, [kind, list])
    }

    private func column(_ sql: String, _ parameters: [String?]) throws -> [String] {
        try connection.query(sql, parameters).values.compactMap { $0.first ?? nil }
    }
}
