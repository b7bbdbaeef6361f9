import Foundation
import Testing
import TestSupport

/// The lab server's roles as its admin makes them (`gazerec lab`), the rules the server enforces
/// on stations, the migration of a schema-2 server, and what `push` counts and says.
@Suite("gazerec lab: one role per station, enforced by the server", .serialized)
struct LabRolesTests {
    typealias Lab = LabServerTests.Lab
    static let admin = LabServerTests.admin
    static let reason = LabServerTests.reason

    /// The error lines of a run (a refusal is exactly one).
    static func errorLines(_ result: CommandResult) -> [Substring] {
        result.stderr.split(separator: "\n").filter { $0.hasPrefix("gazerec: error:") }
    }

    static func psql(_ address: String, _ sql: String) throws -> CommandResult {
        try LabServerTests.psql(address, sql, flags: ["-tA"])
    }

    @Test("lab init sets up and is idempotent; add-station prints its address alone; a taken or bad name, a missing password file and an unreachable server are one line each",
          .enabled(if: admin != nil, reason))
    func labCommands() throws {
        let lab = try Lab(initialised: false)
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let station = ["GAZEREC_DATABASE": folder.path("station.sqlite")]
        _ = try Workspace.storeSession(in: folder.path("station.sqlite"), samples: 10)
        // Before the admin's init, a role connecting is told what is missing and who runs what.
        let old = "postgres://gazerec_station@127.0.0.1:\(lab.port)/\(lab.name)"
        let early = try Binary.run(["push", old, "--all"], environment: station)
        #expect(early.status == 1 && early.stderr.contains("no gazerec schema yet") && early.stderr.contains("gazerec lab init"),
                "\(early.stderr)")

        let first = try Binary.run(["lab", "init", "--server", lab.admin])
        #expect(first.status == 0 && first.stdout.isEmpty && first.stderr.contains("created the lab's schema (version 4)"),
                "\(first.stderr)")
        let second = try Binary.run(["lab", "init", "--server", lab.admin])
        #expect(second.status == 0 && second.stderr.contains("at version 4"), "\(second.stderr)")

        let password = folder.path("password")
        try "lab-secret\n".write(toFile: password, atomically: true, encoding: .utf8)
        let role = "station-\(lab.suffix)"
        let added = try Binary.run(["lab", "add-station", role, "--server", lab.admin, "--password-file", password])
        #expect(added.status == 0 && added.stdout == "postgres://\(role)@127.0.0.1:\(lab.port)/\(lab.name)\n", "\(added.stderr)")
        // The printed address works as it is (its password from the PGPASSFILE).
        #expect(try Self.psql(added.stdout.trimmingCharacters(in: .newlines), "SELECT current_user").stdout == role + "\n")
        #expect(try lab.addRole("add-analyst", "analyst-\(lab.suffix)").hasPrefix("postgres://analyst-\(lab.suffix)@"))

        let taken = try Binary.run(["lab", "add-station", role, "--server", lab.admin, "--password-file", password])
        #expect(taken.status == 1 && Self.errorLines(taken).count == 1 && taken.stderr.contains("already has a role named"),
                "\(taken.stderr)")
        for bad in ["Room-1", "room 1", "pg_room", "1room", String(repeating: "a", count: 64)] {
            let refused = try Binary.run(["lab", "add-station", bad, "--server", lab.admin, "--password-file", password])
            #expect(refused.status == 1 && Self.errorLines(refused).count == 1 && refused.stderr.contains("cannot name a station"),
                    "\(bad): \(refused.stderr)")
        }
        let noFile = try Binary.run(["lab", "add-station", "other-\(lab.suffix)", "--server", lab.admin, "--password-file",
                                     folder.path("missing")])
        #expect(noFile.status == 66 && noFile.stderr.contains("cannot read the password file"), "\(noFile.stderr)")
        let listed = try Binary.run(["lab", "list-stations", "--server", lab.admin])
        #expect(listed.status == 0 && listed.stdout.split(separator: "\n").contains(Substring(role))
                && !listed.stdout.contains("analyst-\(lab.suffix)"), "\(listed.stdout)")
        #expect(try Binary.run(["lab", "add-station", role, "--password-file", password]).status == 64)

        // An unreachable server: one line of ours with HOST:PORT, for the admin's commands and for push.
        for arguments in [["lab", "init", "--server", "postgres://gazerec_admin@127.0.0.1:1/lab"],
                          ["push", "postgres://station@127.0.0.1:1/lab", "--all"]] {
            let unreachable = try Binary.run(arguments, environment: station)
            #expect(unreachable.status == 1 && unreachable.stderr.split(separator: "\n").count == 1
                    && unreachable.stderr.hasPrefix("gazerec: error: cannot reach the lab server at 127.0.0.1:1: connection refused"),
                    "\(unreachable.stderr)")
        }
    }

    @Test("station A tries to insert into, overwrite, delete and read station B's session and is refused each time; the server records who pushed",
          .enabled(if: admin != nil, reason))
    func stationsCannotTamper() throws {
        let lab = try Lab()
        defer { lab.drop() }
        let stationA = lab.station
        let stationB = try lab.addRole("add-station", "second-\(lab.suffix)")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let databaseA = ["GAZEREC_DATABASE": folder.path("a.sqlite")], databaseB = ["GAZEREC_DATABASE": folder.path("b.sqlite")]
        let idA = try Workspace.storeSession(in: folder.path("a.sqlite"), samples: 300)
        let idB = try Workspace.storeSession(in: folder.path("b.sqlite"), samples: 500)
        #expect(try Binary.run(["push", stationA, "--all"], environment: databaseA).status == 0)
        #expect(try Binary.run(["push", stationB, "--all"], environment: databaseB).status == 0)
        let exportB = try Binary.run(["export", idB], environment: databaseB).stdoutData
        // Who pushed is the role that logged in, whatever the client says.
        #expect(try lab.value("SELECT string_agg(station || ' ' || pushed_by, ',' ORDER BY station) FROM session")
                == "second-\(lab.suffix) second-\(lab.suffix),\(lab.stationRole) \(lab.stationRole)")

        // Insert into B's session, and overwrite it: A holds a session with B's id and other content.
        let forged = try Binary.run(["export", idA], environment: databaseA).stdout.replacingOccurrences(of: idA, with: idB)
        try forged.write(toFile: folder.path("forged.json"), atomically: true, encoding: .utf8)
        let databaseForged = ["GAZEREC_DATABASE": folder.path("forged.sqlite")]
        #expect(try Binary.run(["import", folder.path("forged.json")], environment: databaseForged).status == 0)
        for arguments in [["push", stationA, idB], ["push", stationA, idB, "--replace"]] {
            let refused = try Binary.run(arguments, environment: databaseForged)
            #expect(refused.status == 1 && Self.errorLines(refused).count == 1
                    && refused.stderr.contains("session \(idB) is already on the server, pushed by another role"),
                    "\(arguments): \(refused.stderr)")
        }
        // Read B's session: not found for A, through gazerec and through SQL.
        let read = try Binary.run(["--database", stationA, "export", idB])
        #expect(read.status == 66 && Self.errorLines(read).count == 1 && read.stderr.contains("no session \(idB)"), "\(read.stderr)")
        #expect(try Self.psql(stationA, "SELECT count(*) FROM session").stdout == "1\n")
        // Raw SQL as A, each refused by the server.
        let attempts: [(String, String)] = [
            ("INSERT INTO gaze_sample VALUES ('\(idB)', 9999, 0, 0, 0, 'normal')", "may be added only in the transaction"),
            ("INSERT INTO session_document VALUES ('\(idB)', 99, 'x')", "may be added only in the transaction"),
            ("UPDATE session SET host = 'forged' WHERE id = '\(idB)'", "permission denied for table session"),
            ("UPDATE gaze_sample SET x = 0 WHERE session_id = '\(idB)'", "permission denied for table gaze_sample"),
            ("DELETE FROM session WHERE id = '\(idB)'", "permission denied for table session"),
            ("DELETE FROM gaze_sample WHERE session_id = '\(idB)'", "permission denied for table gaze_sample"),
            ("SELECT count(*) FROM session_document", "permission denied for table session_document"),
            ("SELECT count(*) FROM gaze_sample", "permission denied for table gaze_sample"),
            ("TRUNCATE gaze_sample", "permission denied for table gaze_sample"),
            ("ALTER TABLE session DISABLE ROW LEVEL SECURITY", "must be owner of table session"),
        ]
        for (sql, refusal) in attempts {
            let result = try Self.psql(stationA, sql)
            #expect(result.status != 0 && result.stderr.contains(refusal), "\(sql): \(result.stderr)")
        }
        // A's own session is as unchangeable: a replacement by its own station is not permitted.
        let localA = try Binary.run(["export", idA], environment: databaseA).stdout
        try localA.replacingOccurrences(of: "\"trial\"", with: "\"trial-2\"").write(toFile: folder.path("a2.json"),
                                                                                   atomically: true, encoding: .utf8)
        let databaseA2 = ["GAZEREC_DATABASE": folder.path("a2.sqlite")]
        #expect(try Binary.run(["import", folder.path("a2.json")], environment: databaseA2).status == 0)
        let replaceOwn = try Binary.run(["push", stationA, idA, "--replace"], environment: databaseA2)
        #expect(replaceOwn.status == 1 && Self.errorLines(replaceOwn).count == 1 && replaceOwn.stderr.contains("not permitted"),
                "\(replaceOwn.stderr)")
        // A forged pushed_by is replaced by the role that logged in.
        let spoof = try Self.psql(stationA, """
            BEGIN; INSERT INTO session (id, app_id, begin_time, host, gaze_samples, document_sha256, document_bytes, station,
                pushed_by) VALUES ('SPOOF', 'x', 0, 'h', 0, sha256('x'), 1, 'second-\(lab.suffix)', 'second-\(lab.suffix)');
            INSERT INTO session_document VALUES ('SPOOF', 0, 'x'); COMMIT;
            """)
        #expect(spoof.status == 0, "\(spoof.stderr)")
        #expect(try lab.value("SELECT station || ' ' || pushed_by FROM session WHERE id = 'SPOOF'")
                == "\(lab.stationRole) \(lab.stationRole)")

        // B's session is on the server as B pushed it; the analyst reads it.
        #expect(try lab.value("SELECT count(*) FROM gaze_sample WHERE session_id = '\(idB)'") == "500")
        #expect(try Binary.run(["--database", lab.analysis, "export", idB]).stdoutData == exportB)
        #expect(try Self.psql(stationB, "SELECT string_agg(id, ',') FROM session").stdout == idB + "\n")
    }

    /// Schema 2 as gazerec created it (its migrations 1 and 2 in one script), with the grants it
    /// gave the two shared roles.
    static let schemaTwo = """
        CREATE TABLE gazerec_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
        CREATE TABLE session (id text PRIMARY KEY, app_id text NOT NULL, begin_time double precision NOT NULL,
            end_time double precision, station text, host text NOT NULL, pushed_at timestamptz NOT NULL DEFAULT now(),
            pushed_by text NOT NULL DEFAULT current_user, gaze_samples integer NOT NULL,
            document_sha256 bytea NOT NULL, document_bytes bigint NOT NULL);
        CREATE TABLE gaze_sample (session_id text NOT NULL, seq integer NOT NULL, timestamp double precision NOT NULL,
            x double precision NOT NULL, y double precision NOT NULL, tracking_state text NOT NULL);
        CREATE TABLE calibration (id text PRIMARY KEY, station text, host text NOT NULL,
            pushed_at timestamptz NOT NULL DEFAULT now(), document bytea NOT NULL);
        CREATE TABLE session_document (
            session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
            part integer NOT NULL, bytes bytea NOT NULL, PRIMARY KEY (session_id, part));
        CREATE INDEX gaze_sample_session ON gaze_sample USING brin (session_id);
        CREATE FUNCTION gazerec_delete_gaze_samples() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN DELETE FROM gaze_sample WHERE session_id = OLD.id; RETURN OLD; END $$;
        CREATE TRIGGER session_gaze_samples AFTER DELETE ON session FOR EACH ROW EXECUTE FUNCTION gazerec_delete_gaze_samples();
        GRANT SELECT, INSERT ON session, gaze_sample, calibration, session_document TO gazerec_station;
        GRANT SELECT ON gazerec_schema TO gazerec_station, gazerec_analysis;
        GRANT SELECT, INSERT, UPDATE, DELETE ON session, gaze_sample, calibration, session_document TO gazerec_analysis;
        INSERT INTO gazerec_schema (version) VALUES (1), (2);

        """

    @Test("a schema-2 server migrates to schema 3: keys on the scan path, the shared roles' grants gone, exports unchanged",
          .enabled(if: admin != nil, reason))
    func migratesSchemaTwo() throws {
        let lab = try Lab(initialised: false)
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (environment, ids) = try LabServerTests.station(folder, name: "station", samples: 400)
        var sql = Self.schemaTwo
        var exports: [String: Data] = [:]
        for id in ids {
            let exported = try Binary.run(["export", id], environment: environment).stdoutData
            exports[id] = exported
            let hex = exported.map { String(format: "%02x", $0) }.joined()
            sql += """
                INSERT INTO session (id, app_id, begin_time, station, host, gaze_samples, document_sha256, document_bytes,
                    pushed_by) VALUES ('\(id)', 'app', 0, 'room-2', 'h', 400, sha256('\\x\(hex)'::bytea), \(exported.count),
                    'gazerec_station');
                INSERT INTO session_document VALUES ('\(id)', 0, '\\x\(hex)'::bytea);
                INSERT INTO gaze_sample SELECT '\(id)', s, s / 60.0, s, s, 'normal' FROM generate_series(0, 399) s;

                """
        }
        try sql.write(toFile: folder.path("schema2.sql"), atomically: true, encoding: .utf8)
        let loaded = try Binary.runProcess("/usr/bin/psql", ["-q", "-v", "ON_ERROR_STOP=1", lab.admin, "-f", folder.path("schema2.sql")])
        try #require(loaded.status == 0, "\(loaded.stderr)")
        let oldAnalysis = "postgres://gazerec_analysis@127.0.0.1:\(lab.port)/\(lab.name)"
        let early = try Binary.run(["--database", oldAnalysis, "list"])
        #expect(early.status == 1 && early.stderr.contains("version 2, older than this gazerec's (4)"), "\(early.stderr)")

        let migrated = try Binary.run(["lab", "init", "--server", lab.admin])
        #expect(migrated.status == 0 && migrated.stderr.contains("migrated the lab's schema from version 2 to 4"), "\(migrated.stderr)")
        _ = try lab.addRole("add-analyst", "analyst-\(lab.suffix)")
        #expect(try lab.value("SELECT max(version) FROM gazerec_schema") == "4")
        // Keys on both child tables; the BRIN index and the delete trigger are gone.
        #expect(try lab.value("""
            SELECT string_agg(conrelid::regclass || ':' || contype::text, ',' ORDER BY conrelid::regclass::text, contype)
            FROM pg_constraint WHERE conrelid IN ('gaze_sample'::regclass, 'session_document'::regclass) AND contype IN ('f', 'p')
            """) == "gaze_sample:f,gaze_sample:p,session_document:f,session_document:p")
        #expect(try lab.value("SELECT count(*) FROM pg_indexes WHERE indexname = 'gaze_sample_session'") == "0")
        #expect(try lab.value("SELECT count(*) FROM pg_trigger WHERE tgname = 'session_gaze_samples'") == "0")
        // The shared station role keeps no right; the old analysis role became an analyst.
        #expect(try lab.value("""
            SELECT bool_or(has_table_privilege('gazerec_station', t, p)) FROM unnest(ARRAY['session', 'session_document',
                'gaze_sample', 'calibration']) t, unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) p
            """) == "f")
        for id in ids {
            let remote = try Binary.run(["--database", oldAnalysis, "export", id])
            #expect(remote.status == 0 && remote.stdoutData == exports[id], "\(id): \(remote.stderr)")
        }
        // The primary key refuses a row twice (checked while every session still has its rows: with
        // one session, deleting it below leaves none to repeat).
        let duplicate = try Self.psql(lab.admin, "INSERT INTO gaze_sample SELECT session_id, seq, 0, 0, 0, 'normal' FROM gaze_sample LIMIT 1")
        #expect(duplicate.status != 0 && duplicate.stderr.contains("duplicate key"), "\(duplicate.stderr)")
        // The foreign key deletes a session's rows with it, and refuses rows of no session.
        #expect(try Self.psql(lab.analysis, "DELETE FROM session WHERE id = '\(ids[0])'").status == 0)
        #expect(try lab.value("SELECT count(*) FROM gaze_sample") == String(400 * (ids.count - 1)))
        let orphan = try Self.psql(lab.admin, "INSERT INTO gaze_sample VALUES ('NO-SUCH-SESSION', 0, 0, 0, 0, 'normal')")
        #expect(orphan.status != 0 && orphan.stderr.contains("foreign key"), "\(orphan.stderr)")
        let again = try Binary.run(["lab", "init", "--server", lab.admin])
        #expect(again.status == 0 && again.stderr.contains("at version 4"), "\(again.stderr)")
    }

    /// Holds the recorder lock of `database` for `sessionID`, as a running recorder does, until `release`.
    static func holdRecorderLock(database: String, sessionID: String) throws -> () -> Void {
        let descriptor = open(database + ".recorder", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0 && flock(descriptor, LOCK_EX | LOCK_NB) == 0)
        let info = Array(#"{"pid":\#(getpid()),"sessionID":"\#(sessionID)","startedAt":0}"#.utf8)
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, info, info.count, 0)
        return { _ = ftruncate(descriptor, 0); flock(descriptor, LOCK_UN); close(descriptor) }
    }

    @Test("push sends a session whose recorder was killed (closed first), skips and names one still recording, and counts only what the server took",
          .enabled(if: admin != nil, reason))
    func pushCountsHonestly() throws {
        let lab = try Lab()
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("station.sqlite")
        let environment = ["GAZEREC_DATABASE": path]
        let ended = try Workspace.storeSession(in: path, samples: 100)
        // A recorder killed with kill -9: the session was never closed, and no recorder holds the lock.
        let killed = try Workspace.storeSession(in: path, samples: 200, ended: false)
        let recording = try Workspace.storeSession(in: path, samples: 50, ended: false)
        let release = try Self.holdRecorderLock(database: path, sessionID: recording)
        defer { release() }

        let pushed = try Binary.run(["push", lab.station, "--all"], environment: environment)
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(Set(pushed.stdout.split(separator: "\n")) == ["\(ended)\tadded", "\(killed)\tadded"], "\(pushed.stdout)")
        #expect(pushed.stderr.contains("closed 1 session whose recorder had died: \(killed)"), "\(pushed.stderr)")
        #expect(pushed.stderr.contains("skipped \(recording): it is still being recorded"), "\(pushed.stderr)")
        #expect(pushed.stderr.contains("pushed 2 sessions to \(lab.station); skipped 1 still being recorded: \(recording)"),
                "\(pushed.stderr)")
        #expect(try lab.value("SELECT count(*) FROM gaze_sample WHERE session_id = '\(killed)'") == "200")
        #expect(try lab.value("SELECT count(*) FROM session WHERE id = '\(recording)'") == "0")

        // Pushed again: nothing new is counted as pushed.
        let again = try Binary.run(["push", lab.station, ended, killed], environment: environment)
        #expect(again.status == 0 && again.stderr.contains("pushed 0 sessions to \(lab.station); 2 already there unchanged"),
                "\(again.stderr)")
        // A session the server refuses: exit 1, and it is not counted.
        let other = try lab.addRole("add-station", "second-\(lab.suffix)")
        let refused = try Binary.run(["push", other, ended], environment: environment)
        #expect(refused.status == 1 && refused.stderr.contains("pushed 0 sessions") && refused.stderr.contains("1 not sent"),
                "\(refused.stderr)")
    }

    @Test("push --since takes an ISO 8601 time (UTC without a zone), a day, Unix seconds or a duration; --station is refused",
          .enabled(if: admin != nil, reason))
    func sinceTimes() throws {
        let lab = try Lab()
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("station.sqlite")]
        // The constructed sessions begin at Unix time 1,700,000,000: 2023-11-14T22:13:20Z.
        let id = try Workspace.storeSession(in: folder.path("station.sqlite"), samples: 60)
        let cases: [(String, Bool)] = [
            ("2023-11-14T22:13", true), ("2023-11-14T22:14", false), ("2023-11-14T22:13:20", true),
            ("2023-11-14T22:13:21Z", false), ("2023-11-14T23:13+01:00", true), ("2023-11-14T23:14+0100", false),
            ("2023-11-14 22:13:20.5", false), ("2023-11-14", true), ("2023-11-15", false), ("1700000000", true),
            ("3d", false), ("1700000000.5", false),
        ]
        for (since, included) in cases {
            let result = try Binary.run(["push", lab.analysis, "--since", since], environment: environment)
            #expect(result.status == 0, "\(since): \(result.stderr)")
            #expect(result.stdout.contains(id) == included, "\(since): \(result.stdout) \(result.stderr)")
        }
        for bad in ["2023-13-01T00:00", "2023-11-14T25:00", "yesterday", "3x", "2023-11-14T22"] {
            let result = try Binary.run(["push", lab.analysis, "--since", bad], environment: environment)
            #expect(result.status == 64 && result.stderr.contains("ISO 8601"), "\(bad): \(result.stderr)")
        }
        let station = try Binary.run(["push", lab.station, "--all", "--station", "room-1"], environment: environment)
        #expect(station.status == 64 && station.stderr.contains("--station is not taken any more"), "\(station.stderr)")
    }
}
