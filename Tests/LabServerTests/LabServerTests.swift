import Foundation
import GazeModel
import SessionStore
import Testing
import TestSupport

/// A lab server: a real PostgreSQL started by Scripts/setup-postgres.sh (the README's test command runs it).
@Suite("gazerec push and reading a lab server", .serialized)
struct LabServerTests {
    static let environment = ProcessInfo.processInfo.environment
    static var admin: String? { environment["GAZEREC_TEST_POSTGRES_ADMIN"] }
    static let reason: Comment = "needs a PostgreSQL server: run the tests through Scripts/test.sh, or eval \"$(Scripts/setup-postgres.sh)\" first"

    /// A fresh server database set up by `gazerec lab init` (unless `initialised` is false), with an
    /// analyst and a station role of its own made by `gazerec lab add-analyst|add-station`, and
    /// their addresses. Roles belong to the whole server, so their names carry the database's suffix.
    struct Lab {
        static let password = "lab-secret"  // Scripts/setup-postgres.sh's PGPASSFILE gives it to every other role
        let suffix = UUID().uuidString.prefix(8).lowercased()
        var name: String { "gazerec_test_" + suffix }
        let port = LabServerTests.environment["GAZEREC_TEST_POSTGRES_PORT"] ?? "54329"
        var admin: String { "postgres://gazerec_admin@127.0.0.1:\(port)/\(name)" }
        var analysis: String { "postgres://analyst-\(suffix)@127.0.0.1:\(port)/\(name)" }
        var station: String { "postgres://station-\(suffix)@127.0.0.1:\(port)/\(name)" }
        var stationRole: String { "station-\(suffix)" }
        var roles: [String] { ["analyst-\(suffix)", "station-\(suffix)", "second-\(suffix)"] }

        init(initialised: Bool = true) throws {
            let made = try psql(LabServerTests.admin!, "CREATE DATABASE \(name)")
            try #require(made.status == 0, "\(made.stderr)")
            if initialised { try setUp() }
        }

        /// `gazerec lab init`, then the analyst's and the station's roles.
        func setUp() throws {
            let initialised = try Binary.run(["lab", "init", "--server", admin])
            try #require(initialised.status == 0, "\(initialised.stderr)")
            _ = try addRole("add-analyst", "analyst-\(suffix)")
            _ = try addRole("add-station", "station-\(suffix)")
        }

        /// A role made by `gazerec lab add-station|add-analyst`; returns the address it printed.
        func addRole(_ command: String, _ role: String) throws -> String {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("gazerec-password-\(UUID().uuidString)").path
            try (Self.password + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: file) }
            let added = try Binary.run(["lab", command, role, "--server", admin, "--password-file", file])
            try #require(added.status == 0, "\(added.stderr)")
            return added.stdout.trimmingCharacters(in: .newlines)
        }

        func drop() {
            _ = try? psql(LabServerTests.admin!, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            for role in roles { _ = try? psql(LabServerTests.admin!, "DROP ROLE IF EXISTS \"\(role)\"") }
        }

        /// One value from the server, as the analysis role sees it.
        func value(_ sql: String) throws -> String {
            try psql(analysis, sql, flags: ["-tA"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    static func psql(_ address: String, _ sql: String, flags: [String] = []) throws -> CommandResult {
        try Binary.runProcess("/usr/bin/psql", ["-q", "-v", "ON_ERROR_STOP=1"] + flags + [address, "-c", sql])
    }

    /// A station database holding the iOS fixture and a session of `samples` constructed gaze samples.
    static func station(_ folder: TemporaryFolder, name: String, samples: Int) throws -> (environment: [String: String], ids: [String]) {
        let environment = ["GAZEREC_DATABASE": folder.path(name + ".sqlite")]
        var ids: [String] = []
        if Fixtures.available {
            #expect(try Binary.run(["import", Fixtures.iosSession], environment: environment).status == 0)
            ids.append("3BE54760-F1E8-4799-A3CB-78806270E72A")
        }
        ids.append(try Workspace.storeSession(in: folder.path(name + ".sqlite"), samples: samples))
        return (environment, ids)
    }

    @Test("stations push, the server exports every session byte for byte as the station does; a second push changes nothing",
          .enabled(if: admin != nil, reason))
    func pushAndReadBack() throws {
        let lab = try Lab()
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (environment, ids) = try Self.station(folder, name: "station", samples: 3_000)

        #expect(try Binary.run(["--database", lab.analysis, "list", "--ids"]).status == 0)

        let pushed = try Binary.run(["push", lab.station, "--all"], environment: environment)
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(Set(pushed.stdout.split(separator: "\n").map(String.init)) == Set(ids.map { "\($0)\tadded" }))
        for id in ids {
            let local = try Binary.run(["export", id], environment: environment)
            let remote = try Binary.run(["--database", lab.analysis, "export", id])
            #expect(remote.status == 0 && remote.stdoutData == local.stdoutData, "\(id): \(remote.stderr)")
            let localCSV = try Binary.run(["export", id, "--format", "csv", "--snake-case"], environment: environment)
            #expect(try Binary.run(["--database", lab.analysis, "export", id, "--format", "csv", "--snake-case"]).stdoutData
                    == localCSV.stdoutData)
        }
        // Every session at once, a folder of files, and snake_case JSON (read through a scratch database).
        let localAll = try Binary.run(["export", "--all"], environment: environment)
        let remoteAll = try Binary.run(["--database", lab.analysis, "export", "--all"])
        #expect(remoteAll.status == 0 && remoteAll.stdoutData == localAll.stdoutData, "\(remoteAll.stderr)")
        let localSnake = try Binary.run(["export", "--all", "--snake-case"], environment: environment)
        #expect(try Binary.run(["--database", lab.analysis, "export", "--all", "--snake-case"]).stdoutData == localSnake.stdoutData)
        #expect(try Binary.run(["export", "--all", "--output-dir", folder.path("local")], environment: environment).status == 0)
        #expect(try Binary.run(["--database", lab.analysis, "export", "--all", "--output-dir", folder.path("remote")]).status == 0)
        for id in ids {
            #expect(FileManager.default.contents(atPath: folder.path("remote/\(id).json"))
                    == FileManager.default.contents(atPath: folder.path("local/\(id).json")), "\(id).json")
        }
        let unknown = try Binary.run(["--database", lab.analysis, "export", "FFFFFFFF"])
        #expect(unknown.status == 66 && unknown.stderr.contains("no session FFFFFFFF in postgres://"), "\(unknown.stderr)")
        #expect(try lab.value("SELECT string_agg(DISTINCT station || ' ' || pushed_by, ',') FROM session")
                == "\(lab.stationRole) \(lab.stationRole)")
        #expect(try lab.value("SELECT count(*) FROM gaze_sample WHERE session_id = '\(ids.last!)'") == "3000")

        let again = try Binary.run(["push", lab.station, "--all"], environment: environment)
        #expect(again.status == 0 && again.stdout.split(separator: "\n").allSatisfy { $0.hasSuffix("\tunchanged") })

        // Reading commands refuse to write to a server; a password on the command line is refused.
        let delete = try Binary.run(["--database", lab.analysis, "delete", ids[0], "--yes"])
        #expect(delete.status == 64 && delete.stderr.contains("is a lab server"), "\(delete.stderr)")
        let secret = try Binary.run(["push", "postgres://gazerec_station:station-secret@127.0.0.1/x", "--all"],
                                    environment: environment)
        #expect(secret.status == 64 && secret.stderr.contains("the server address holds a password"))
    }

    @Test("a command about given sessions reads only those from the server; one broken document fails only the commands that read it",
          .enabled(if: admin != nil, reason))
    func readsOnlyNamedSessions() throws {
        let lab = try Lab()
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (environment, ids) = try Self.station(folder, name: "station", samples: 500)
        #expect(try Binary.run(["push", lab.analysis, "--all"], environment: environment).status == 0)
        // A session whose stored document is not JSON (written by hand, as only SQL could).
        let broken = "0BAD0000-0000-0000-0000-000000000000"
        let inserted = try Self.psql(lab.analysis, """
            BEGIN;
            INSERT INTO session (id, app_id, begin_time, host, gaze_samples, document_sha256, document_bytes)
                VALUES ('\(broken)', 'x', 0, 'h', 0, sha256('not json'), 8);
            INSERT INTO session_document (session_id, part, bytes) VALUES ('\(broken)', 0, 'not json');
            COMMIT;
            """)
        try #require(inserted.status == 0, "\(inserted.stderr)")
        for id in ids {
            let local = try Binary.run(["export", id], environment: environment)
            let remote = try Binary.run(["--database", lab.analysis, "export", String(id.prefix(8))])
            #expect(remote.status == 0 && remote.stdoutData == local.stdoutData, "\(id): \(remote.stderr)")
            let show = try Binary.run(["--database", lab.analysis, "show", id])
            #expect(show.status == 0, "\(show.stderr)")
        }
        #expect(try Binary.run(["--database", lab.analysis, "calibrations", "list"]).status == 0)
        let all = try Binary.run(["--database", lab.analysis, "list"])
        // The server named by --database is the input, and a document of it is not EyeTracking JSON: 65.
        #expect(all.status == 65 && all.stderr.contains(broken) && all.stderr.split(separator: "\n").count == 1, "\(all.stderr)")
    }

    @Test("export ID ID from the server (an id twice, in another case, or with its prefix) writes the session once, as the station does",
          .enabled(if: admin != nil, reason))
    func exportsEachSessionOnce() throws {
        let lab = try Lab()
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (environment, ids) = try Self.station(folder, name: "station", samples: 200)
        #expect(try Binary.run(["push", lab.station, "--all"], environment: environment).status == 0)
        let id = ids.last!
        let local = try Binary.run(["export", id], environment: environment)
        try #require(local.status == 0 && !local.stdout.isEmpty, "\(local.stderr)")

        let remote = try Binary.run(["--database", lab.analysis, "export", id, id.lowercased(), String(id.prefix(8))])
        let files = try Binary.run(["--database", lab.analysis, "export", id, id, "--output-dir", folder.path("remote")])

        #expect(remote.status == 0 && remote.stdoutData == local.stdoutData, "\(remote.stderr)")
        #expect(remote.stderr.contains("each session is exported once"), "\(remote.stderr)")
        #expect(files.status == 0 && files.stderr.contains("exported 1 session to"), "\(files.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("remote")) == ["\(id).json"])
        let file = folder.path("twice.json")
        try remote.stdoutData.write(to: URL(fileURLWithPath: file))
        let imported = try Binary.run(["import", file], environment: ["GAZEREC_DATABASE": folder.path("fresh.sqlite")])
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    @Test("a server of schema 1 (whole documents in the session row) is migrated: its sessions export as before and push unchanged",
          .enabled(if: admin != nil, reason))
    func migratesSchemaOne() throws {
        let lab = try Lab(initialised: false)
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (environment, ids) = try Self.station(folder, name: "station", samples: 2_000)
        // Schema 1 as gazerec created it, holding the station's sessions as it stored them.
        var sql = """
            CREATE TABLE gazerec_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
            CREATE TABLE session (id text PRIMARY KEY, app_id text NOT NULL, begin_time double precision NOT NULL,
                end_time double precision, station text, host text NOT NULL, pushed_at timestamptz NOT NULL DEFAULT now(),
                pushed_by text NOT NULL DEFAULT current_user, gaze_samples integer NOT NULL, document bytea NOT NULL);
            CREATE TABLE gaze_sample (session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE, seq integer NOT NULL,
                timestamp double precision NOT NULL, x double precision NOT NULL, y double precision NOT NULL,
                tracking_state text NOT NULL, PRIMARY KEY (session_id, seq));
            CREATE TABLE calibration (id text PRIMARY KEY, station text, host text NOT NULL,
                pushed_at timestamptz NOT NULL DEFAULT now(), document bytea NOT NULL);
            GRANT SELECT, INSERT ON session, gaze_sample, calibration TO gazerec_station;
            GRANT SELECT ON gazerec_schema TO gazerec_station;
            INSERT INTO gazerec_schema (version) VALUES (1);

            """
        var exports: [String: Data] = [:]
        for id in ids {
            let exported = try Binary.run(["export", id], environment: environment)
            exports[id] = exported.stdoutData
            let hex = exported.stdoutData.map { String(format: "%02x", $0) }.joined()
            sql += "INSERT INTO session (id, app_id, begin_time, host, gaze_samples, document) "
                + "VALUES ('\(id)', 'app', 0, 'old-station', 0, '\\x\(hex)'::bytea);\n"
        }
        let file = folder.path("schema1.sql")
        try sql.write(toFile: file, atomically: true, encoding: .utf8)
        let loaded = try Binary.runProcess("/usr/bin/psql", ["-q", "-v", "ON_ERROR_STOP=1", lab.admin, "-f", file])
        try #require(loaded.status == 0, "\(loaded.stderr)")

        // The old shared station role cannot migrate; the lab's admin does, with `gazerec lab init`.
        let old = "postgres://gazerec_station@127.0.0.1:\(lab.port)/\(lab.name)"
        let early = try Binary.run(["push", old, "--all"], environment: environment)
        #expect(early.status == 1 && early.stderr.contains("version 1, older than this gazerec's (4)")
                && early.stderr.contains("gazerec lab init"), "\(early.stderr)")
        try lab.setUp()
        for id in ids {
            let remote = try Binary.run(["--database", lab.analysis, "export", id])
            #expect(remote.status == 0 && remote.stdoutData == exports[id], "\(id): \(remote.stderr)")
        }
        #expect(try lab.value("SELECT max(version) FROM gazerec_schema") == "4")
        #expect(try lab.value("SELECT count(*) FROM session_document") == String(ids.count))
        #expect(try lab.value("SELECT bool_and(document_bytes = octet_length(bytes) AND document_sha256 = sha256(bytes)) "
                              + "FROM session JOIN session_document ON session_id = id") == "t")
        // Sessions pushed before schema 3 are no station role's own: an analyst, who sees them, finds them unchanged.
        let again = try Binary.run(["push", lab.analysis, "--all"], environment: environment)
        #expect(again.status == 0 && Set(again.stdout.split(separator: "\n").map(String.init)) == Set(ids.map { "\($0)\tunchanged" }),
                "\(again.stdout)\(again.stderr)")
    }

    @Test("the same id with other content is refused; a station may not replace it; the analysis role may",
          .enabled(if: admin != nil, reason))
    func conflicts() throws {
        let lab = try Lab()
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (environment, ids) = try Self.station(folder, name: "a", samples: 100)
        let id = ids.last!
        #expect(try Binary.run(["push", lab.station, id], environment: environment).status == 0)
        // Another station's database: the same id, other content.
        let other = folder.path("b.sqlite")
        let otherID = try Workspace.storeSession(in: other, samples: 200)
        let exported = try Binary.run(["export", otherID], environment: ["GAZEREC_DATABASE": other]).stdout
        let changed = folder.path("changed.json")
        try exported.replacingOccurrences(of: otherID, with: id).write(toFile: changed, atomically: true, encoding: .utf8)
        let elsewhere = ["GAZEREC_DATABASE": folder.path("c.sqlite")]
        #expect(try Binary.run(["import", changed], environment: elsewhere).status == 0)

        let refused = try Binary.run(["push", lab.station, id], environment: elsewhere)
        #expect(refused.status == 1 && refused.stderr.contains("already on the server with other content"), "\(refused.stderr)")
        let station = try Binary.run(["push", lab.station, id, "--replace"], environment: elsewhere)
        #expect(station.status == 1 && station.stderr.contains("not permitted"), "\(station.stderr)")
        #expect(try lab.value("SELECT count(*) FROM gaze_sample WHERE session_id = '\(id)'") == "100")
        let replaced = try Binary.run(["push", lab.analysis, id, "--replace"], environment: elsewhere)
        #expect(replaced.status == 0 && replaced.stdout == "\(id)\treplaced\n", "\(replaced.stderr)")
        #expect(try lab.value("SELECT count(*) FROM gaze_sample WHERE session_id = '\(id)'") == "200")
        #expect(try Binary.run(["--database", lab.analysis, "export", id]).stdoutData
                == Binary.run(["export", id], environment: elsewhere).stdoutData)
    }

    @Test("a push killed mid-session leaves the server with the session whole or not at all; the next push completes",
          .enabled(if: admin != nil, reason))
    func killedMidPush() throws {
        let lab = try Lab()
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(try Binary.run(["--database", lab.analysis, "list"]).status == 0)
        let environment = ["GAZEREC_DATABASE": folder.path("big.sqlite")]
        let ids = try (0..<3).map { _ in
            try Workspace.storeSession(in: folder.path("big.sqlite"), samples: 150_000)
        }
        for delay in [200_000, 600_000] as [useconds_t] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Binary.gazerec)
            process.arguments = ["push", lab.station, "--all"]
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            usleep(300_000)  // the server notices the closed connection and rolls back
            for id in ids {
                let rows = try lab.value("SELECT count(*) FROM gaze_sample WHERE session_id = '\(id)'")
                let sessions = try lab.value("SELECT count(*) FROM session WHERE id = '\(id)'")
                #expect((sessions == "0" && rows == "0") || (sessions == "1" && rows == "150000"), "\(id): \(sessions) \(rows)")
            }
        }
        let finished = try Binary.run(["push", lab.station, "--all"], environment: environment)
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(try lab.value("SELECT count(*) FROM gaze_sample") == "450000")
    }

    @Test("two stations pushing at once lose nothing", .enabled(if: admin != nil, reason))
    func twoStations() throws {
        let lab = try Lab()
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let stations = [lab.station, try lab.addRole("add-station", "second-\(lab.suffix)")]
        var environments: [[String: String]] = []
        for station in ["a", "b"] {
            for _ in 0..<20 { _ = try Workspace.storeSession(in: folder.path(station + ".sqlite"), samples: 600) }
            environments.append(["GAZEREC_DATABASE": folder.path(station + ".sqlite")])
        }
        let processes = try environments.enumerated().map { index, environment in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Binary.gazerec)
            process.arguments = ["push", stations[index], "--all"]
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        processes.forEach { $0.waitUntilExit() }
        #expect(processes.allSatisfy { $0.terminationStatus == 0 })
        #expect(try lab.value("SELECT count(*) || ' ' || count(DISTINCT station) FROM session") == "40 2")
        #expect(try lab.value("SELECT count(*) FROM gaze_sample") == "24000")
        let listed = try Binary.run(["--database", lab.analysis, "list", "--ids"]).stdout.split(separator: "\n")
        #expect(listed.count == 40)
    }

    @Test("a server that goes away mid-push: one clear line, the station's data untouched, the next push completes",
          .enabled(if: admin != nil, reason))
    func serverGoesAway() throws {
        // A cluster of its own, so stopping it leaves the other tests' server alone; its port follows the
        // tests' own, so test runs beside each other (each with its port) do not share it.
        let port = String((Int(Self.environment["GAZEREC_TEST_POSTGRES_PORT"] ?? "") ?? 54329) + 1000)
        let setup = Fixtures.repositoryRoot.appendingPathComponent("Scripts/setup-postgres.sh").path
        let started = try Binary.runProcess(setup, [], environment: ["GAZEREC_TEST_POSTGRES_PORT": port])
        try #require(started.status == 0, "\(started.stderr)")
        defer { _ = try? Binary.runProcess(setup, ["stop"], environment: ["GAZEREC_TEST_POSTGRES_PORT": port]) }
        let exports = Dictionary(uniqueKeysWithValues: started.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "'"))) : nil
        })
        let pgpass = try #require(exports["PGPASSFILE"])
        let name = "gazerec_gone_" + UUID().uuidString.prefix(8).lowercased()
        _ = try Binary.runProcess("/usr/bin/psql", ["-q", "postgres://gazerec_admin@127.0.0.1:\(port)/postgres", "-c",
                                                    "CREATE DATABASE \(name)"],
                                  environment: ["PGPASSFILE": pgpass])
        let address = "postgres://gazerec_admin@127.0.0.1:\(port)/\(name)"
        let initialised = try Binary.run(["lab", "init", "--server", address], environment: ["PGPASSFILE": pgpass])
        try #require(initialised.status == 0, "\(initialised.stderr)")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let environment = ["GAZEREC_DATABASE": folder.path("station.sqlite"), "PGPASSFILE": pgpass]
        for _ in 0..<4 { _ = try Workspace.storeSession(in: folder.path("station.sqlite"), samples: 200_000) }
        let before = try Binary.run(["export", "--all"], environment: environment).stdoutData

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.gazerec)
        process.arguments = ["push", address, "--all"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // The server stops while the push streams rows (its COPY is running), never before it connected.
        let copying = "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(name)' AND query LIKE 'COPY %' AND state = 'active'"
        var streaming = false
        while !streaming && process.isRunning {
            let seen = try Binary.runProcess("/usr/bin/psql", ["-tA", "postgres://gazerec_admin@127.0.0.1:\(port)/postgres", "-c", copying],
                                             environment: ["PGPASSFILE": pgpass])
            streaming = (Int(seen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0
        }
        try #require(streaming, "the push ended before it was seen streaming rows")
        _ = try Binary.runProcess(setup, ["stop"], environment: ["GAZEREC_TEST_POSTGRES_PORT": port])
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1, "\(message)")
        let lines = message.split(separator: "\n").filter { $0.contains("error:") }
        #expect(lines.count == 1 && lines.first?.contains("the connection to \(address) was lost: ") == true, "\(message)")
        #expect(try Binary.run(["export", "--all"], environment: environment).stdoutData == before)

        let restarted = try Binary.runProcess(setup, [], environment: ["GAZEREC_TEST_POSTGRES_PORT": port])
        try #require(restarted.status == 0, "\(restarted.stderr)")
        let again = try Binary.run(["push", address, "--all"], environment: environment)
        #expect(again.status == 0, "\(again.stderr)")
        let rows = try Binary.runProcess("/usr/bin/psql", ["-tA", address, "-c", "SELECT count(*) FROM gaze_sample"],
                                         environment: ["PGPASSFILE": pgpass])
        #expect(rows.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "800000")
    }

    @Test("push --watch sends each session as its recording ends, not one still open, and stops on SIGTERM",
          .enabled(if: admin != nil, reason))
    func watching() throws {
        let lab = try Lab()
        defer { lab.drop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(try Binary.run(["--database", lab.analysis, "list"]).status == 0)
        let database = folder.path("station.sqlite")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.gazerec)
        process.arguments = ["push", lab.station, "--watch"]
        process.environment = ProcessInfo.processInfo.environment.merging(["GAZEREC_DATABASE": database]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        usleep(500_000)
        let ended = try Workspace.storeSession(in: database, samples: 500)
        let open = try Workspace.storeSession(in: database, samples: 500, ended: false)
        var count = ""
        for _ in 0..<80 {
            count = try lab.value("SELECT string_agg(id, ',') FROM session")
            if !count.isEmpty { break }
            usleep(100_000)
        }
        #expect(count == ended)
        usleep(2_500_000)
        #expect(try lab.value("SELECT count(*) FROM session WHERE id = '\(open)'") == "0")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 || process.terminationStatus == 128 + SIGTERM)
    }
}
