import Foundation

/// The lab server's schema: its versions, the migrations between them, and the rules the server
/// itself enforces on stations and analysts.
///
/// WHAT THIS OBJECT REPRESENTS
///   Version 4 (`gazerec_schema` holds the versions applied). The tables belong to the group role
///   `gazerec_owner`, which nobody logs in as; stations (`gazerec_stations`) and analysts
///   (`gazerec_analysts`) get what they need and no more:
///   - `session` and `calibration` rows record who pushed them (`pushed_by`, and `station` for
///     sessions) from the role that logged in (`session_user`), set by a trigger whatever the client
///     sends; row-level security lets a station insert rows only as itself and read only its own;
///   - a station may INSERT into `session_document` and `gaze_sample` but neither read nor change
///     them; a trigger refuses rows of a session that was not inserted in the same transaction, so
///     a station can add rows only to the session it is pushing (row-level security would forbid
///     the binary COPY the push streams through);
///   - no station may UPDATE or DELETE anything; analysts read everything, insert, and delete (a
///     replacement is a delete and an insert in one transaction);
///   - every child row names an existing session (foreign keys, deleted with their session), and a
///     part or sample is unique in its session (primary keys);
///   - the ids of withdrawn sessions and calibrations (`withdrawal`: kind, id and time, nothing
///     else) are refused by a trigger on every insert, whoever pushes them (version 4).
/// Migrations run in one transaction under an advisory lock, by `LabAdministration.setUp` only.
public enum LabSchema {
    /// The schema version this gazerec reads and writes.
    public static let version = 4

    /// The group roles, created by `setUp` (cluster-wide, like every PostgreSQL role).
    public static let ownerRole = "gazerec_owner"
    public static let stationsRole = "gazerec_stations"
    public static let analystsRole = "gazerec_analysts"

    static let tables = ["gazerec_schema", "session", "session_document", "gaze_sample", "calibration"]

    /// The version of the schema in the connection's database (0: none).
    static func installedVersion(_ connection: PostgresConnection) throws -> Int {
        let present = try connection.query("SELECT to_regclass('gazerec_schema') IS NOT NULL").values.first?.first == "t"
        guard present else { return 0 }
        let text = try connection.query("SELECT COALESCE(MAX(version), 0) FROM gazerec_schema").values.first?.first ?? nil
        return Int(text ?? "0") ?? 0
    }

    /// Refuses a database whose schema is missing, older or newer than this gazerec's.
    static func requireCurrent(_ connection: PostgresConnection) throws {
        let installed: Int
        do {
            installed = try installedVersion(connection)
        } catch LabServerError.statement(let state, let reason) where state == "42501" {
            throw LabServerError.notPermitted(reason: reason)
        }
        if installed == 0 { throw LabServerError.noSchema(address: connection.address) }
        if installed < version { throw LabServerError.olderSchema(version: installed, known: version) }
        if installed > version { throw LabServerError.newerSchema(version: installed, known: version) }
    }

    /// Creates the group roles when missing, brings the schema to `version` (creating it in an
    /// empty database) and grants what each group may do; returns the version found before.
    /// Idempotent. Needs an administrator of the server (a superuser).
    static func setUp(_ connection: PostgresConnection) throws -> Int {
        let found = try installedVersion(connection)
        if found > version { throw LabServerError.newerSchema(version: found, known: version) }
        try connection.transaction {
            // Two admins at once: the second waits, then finds the work done.
            try connection.query("SELECT pg_advisory_xact_lock(724513)")
            try createGroupRoles(connection)
            try connection.query("CREATE TABLE IF NOT EXISTS gazerec_schema (version integer PRIMARY KEY, "
                                 + "applied_at timestamptz NOT NULL DEFAULT now())")
            let current = try installedVersion(connection)
            if current < 1 { try migration1(connection) }
            if current < 2 { try migration2(connection) }
            if current < 3 { try migration3(connection) }
            if current < 4 { try migration4(connection) }
            try grantPrivileges(connection)
        }
        return found
    }

    private static func createGroupRoles(_ connection: PostgresConnection) throws {
        try connection.query("""
            DO $$ DECLARE name text; BEGIN
                FOREACH name IN ARRAY ARRAY['\(ownerRole)', '\(stationsRole)', '\(analystsRole)'] LOOP
                    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = name) THEN
                        -- Roles are the whole server's: a set-up of another database may make it first.
                        BEGIN
                            EXECUTE format('CREATE ROLE %I NOLOGIN', name);
                        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
                        END;
                    END IF;
                END LOOP;
            END $$
            """)
    }

    /// What each group may do, granted again on every set-up (so a hand-edited grant is put right).
    private static func grantPrivileges(_ connection: PostgresConnection) throws {
        let all = tables.joined(separator: ", ")
        try connection.query("REVOKE ALL ON \(all) FROM PUBLIC, \(stationsRole), \(analystsRole)")
        try connection.query("GRANT SELECT ON gazerec_schema TO \(stationsRole), \(analystsRole)")
        try connection.query("GRANT SELECT, INSERT ON session, calibration TO \(stationsRole)")
        try connection.query("GRANT INSERT ON session_document, gaze_sample TO \(stationsRole)")
        try connection.query("GRANT SELECT, INSERT, DELETE ON session, session_document, gaze_sample, calibration "
                             + "TO \(analystsRole)")
        // Ids and times only: analysts may read what was withdrawn; only an administrator withdraws.
        // A station reads no more of it than whether the id it pushes was withdrawn: through
        // `gazerec_refuse_withdrawn`, which runs as the tables' owner (granted again here, so a
        // server set up before this rule gets it with the next set-up).
        try connection.query("REVOKE ALL ON withdrawal FROM PUBLIC, \(stationsRole), \(analystsRole)")
        try connection.query("GRANT SELECT ON withdrawal TO \(analystsRole)")
        try connection.query("""
            DO $$ BEGIN
                EXECUTE format('ALTER FUNCTION gazerec_refuse_withdrawn(text, text) SECURITY DEFINER SET search_path = %I, pg_temp',
                               current_schema());
            END $$
            """)
        try connection.query("ALTER FUNCTION gazerec_refuse_withdrawn(text, text) OWNER TO \(ownerRole)")
    }

    /// Version 1: sessions with their whole document, scan-path rows, calibrations.
    private static func migration1(_ connection: PostgresConnection) throws {
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
        try connection.query("INSERT INTO gazerec_schema (version) VALUES (1)")
    }
}

extension LabSchema {
    /// Version 2: a session's document in parts of a mebibyte (`session_document`), streamed in
    /// and out so neither side holds a whole hour in memory, and its SHA-256 and length on the
    /// session row, so a push of an unchanged session sends nothing. Documents already stored move
    /// into one part each. (Its scan-path rows lost their keys for speed; version 3 restores them.)
    private static func migration2(_ connection: PostgresConnection) throws {
        try connection.query("""
            CREATE TABLE session_document (
                session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
                part integer NOT NULL,
                bytes bytea NOT NULL,
                PRIMARY KEY (session_id, part)
            )
            """)
        // JSON compresses about fourfold; lz4 does it at memory speed where the server has it.
        try connection.query("""
            DO $$ BEGIN
                ALTER TABLE session_document ALTER COLUMN bytes SET COMPRESSION lz4;
            EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN NULL;
            END $$
            """)
        try connection.query("ALTER TABLE session ADD COLUMN document_sha256 bytea, ADD COLUMN document_bytes bigint")
        try connection.query("INSERT INTO session_document (session_id, part, bytes) SELECT id, 0, document FROM session")
        try connection.query("UPDATE session SET document_sha256 = sha256(document), document_bytes = length(document)")
        try connection.query("""
            ALTER TABLE session ALTER COLUMN document_sha256 SET NOT NULL, ALTER COLUMN document_bytes SET NOT NULL,
                DROP COLUMN document
            """)
        try connection.query("""
            DO $$ DECLARE name text; BEGIN
                FOR name IN SELECT conname FROM pg_constraint
                            WHERE conrelid = 'gaze_sample'::regclass AND contype IN ('f', 'p') LOOP
                    EXECUTE format('ALTER TABLE gaze_sample DROP CONSTRAINT %I', name);
                END LOOP;
            END $$
            """)
        try connection.query("CREATE INDEX gaze_sample_session ON gaze_sample USING brin (session_id)")
        try connection.query("""
            CREATE FUNCTION gazerec_delete_gaze_samples() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                DELETE FROM gaze_sample WHERE session_id = OLD.id;
                RETURN OLD;
            END $$
            """)
        try connection.query("""
            CREATE TRIGGER session_gaze_samples AFTER DELETE ON session FOR EACH ROW
                EXECUTE FUNCTION gazerec_delete_gaze_samples()
            """)
        try connection.query("INSERT INTO gazerec_schema (version) VALUES (2)")
    }

    /// Version 3: the server enforces who may do what (see the type's summary). The scan path gets
    /// its keys back (a foreign key to its session and a primary key on (session, seq), in place of
    /// the BRIN index and the delete trigger); the tables pass to `gazerec_owner`; the shared roles
    /// of version 2 lose their grants (`gazerec_analysis`, if there, becomes an analyst).
    private static func migration3(_ connection: PostgresConnection) throws {
        // Version 2's moved documents are checked now: a table with pending checks cannot change owner.
        try connection.query("SET CONSTRAINTS ALL IMMEDIATE")
        try connection.query("DROP TRIGGER session_gaze_samples ON session")
        try connection.query("DROP FUNCTION gazerec_delete_gaze_samples()")
        try connection.query("DROP INDEX gaze_sample_session")
        try connection.query("ALTER TABLE gaze_sample ADD PRIMARY KEY (session_id, seq)")
        try connection.query("""
            ALTER TABLE gaze_sample ADD FOREIGN KEY (session_id) REFERENCES session(id) ON DELETE CASCADE
            """)
        try connection.query("ALTER TABLE calibration ADD COLUMN pushed_by text")
        try connection.query("""
            ALTER TABLE session ALTER COLUMN station SET DEFAULT session_user,
                ALTER COLUMN pushed_by SET DEFAULT session_user
            """)
        try connection.query("ALTER TABLE calibration ALTER COLUMN station SET DEFAULT session_user, "
                             + "ALTER COLUMN pushed_by SET DEFAULT session_user")
        try pushedByTriggers(connection)
        try rowsOnlyWithTheirSession(connection)
        try rowLevelSecurity(connection)
        for table in tables { try connection.query("ALTER TABLE \(table) OWNER TO \(ownerRole)") }
        try connection.query("""
            DO $$ BEGIN
                IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'gazerec_station') THEN
                    REVOKE ALL ON gazerec_schema, session, session_document, gaze_sample, calibration FROM gazerec_station;
                END IF;
                IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'gazerec_analysis') THEN
                    REVOKE ALL ON gazerec_schema, session, session_document, gaze_sample, calibration FROM gazerec_analysis;
                    IF NOT pg_has_role('gazerec_analysis', '\(analystsRole)', 'MEMBER') THEN
                        BEGIN  -- a set-up of another database may grant it at the same moment
                            GRANT \(analystsRole) TO gazerec_analysis;
                        EXCEPTION WHEN unique_violation THEN NULL;
                        END;
                    END IF;
                END IF;
            END $$
            """)
        try connection.query("INSERT INTO gazerec_schema (version) VALUES (3)")
    }

    /// Who pushed a session or calibration is the role that logged in (`session_user`, which
    /// `SET ROLE` does not change), whatever the client sends.
    private static func pushedByTriggers(_ connection: PostgresConnection) throws {
        try connection.query("""
            CREATE FUNCTION gazerec_pushed_by() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                NEW.pushed_by := session_user;
                NEW.station := session_user;
                RETURN NEW;
            END $$
            """)
        for table in ["session", "calibration"] {
            try connection.query("CREATE TRIGGER \(table)_pushed_by BEFORE INSERT ON \(table) FOR EACH ROW "
                                 + "EXECUTE FUNCTION gazerec_pushed_by()")
        }
    }

    /// Document parts and scan-path rows are added only to a session inserted in the same
    /// transaction (its row's `xmin` is this transaction): the session being pushed, never one
    /// already on the server. Parts come before their session's row (the digest is known at the
    /// document's end), so they are checked at commit; the scan path once per statement.
    private static func rowsOnlyWithTheirSession(_ connection: PostgresConnection) throws {
        let refusal = "RAISE EXCEPTION 'rows of session % may be added only in the transaction that adds the session', "
            + "stray USING ERRCODE = 'insufficient_privilege'"
        try connection.query("""
            CREATE FUNCTION gazerec_part_with_its_session() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE stray text := NEW.session_id;
            BEGIN
                IF NOT EXISTS (SELECT FROM session WHERE id = stray AND xmin = pg_current_xact_id()::xid) THEN
                    \(refusal);
                END IF;
                RETURN NULL;
            END $$
            """)
        try connection.query("""
            CREATE CONSTRAINT TRIGGER session_document_with_its_session AFTER INSERT ON session_document
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION gazerec_part_with_its_session()
            """)
        try connection.query("""
            CREATE FUNCTION gazerec_rows_with_their_session() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE stray text;
            BEGIN
                SELECT n.session_id INTO stray FROM (SELECT DISTINCT session_id FROM inserted) n
                    WHERE NOT EXISTS (SELECT FROM session WHERE id = n.session_id AND xmin = pg_current_xact_id()::xid)
                    LIMIT 1;
                IF FOUND THEN \(refusal); END IF;
                RETURN NULL;
            END $$
            """)
        try connection.query("""
            CREATE TRIGGER gaze_sample_with_its_session AFTER INSERT ON gaze_sample REFERENCING NEW TABLE AS inserted
                FOR EACH STATEMENT EXECUTE FUNCTION gazerec_rows_with_their_session()
            """)
    }

    /// A station sees and inserts only its own sessions and calibrations; an analyst all of them.
    private static func rowLevelSecurity(_ connection: PostgresConnection) throws {
        for table in ["session", "calibration"] {
            try connection.query("ALTER TABLE \(table) ENABLE ROW LEVEL SECURITY")
            try connection.query("CREATE POLICY station_reads_own ON \(table) FOR SELECT TO \(stationsRole) "
                                 + "USING (pushed_by = session_user)")
            try connection.query("CREATE POLICY station_adds_own ON \(table) FOR INSERT TO \(stationsRole) "
                                 + "WITH CHECK (pushed_by = session_user)")
            try connection.query("CREATE POLICY analyst_all ON \(table) TO \(analystsRole) USING (true) WITH CHECK (true)")
        }
    }
}

extension LabSchema {
    /// The SQLSTATE a push of a withdrawn id fails with (a code of gazerec's own).
    static let withdrawnState = "GZW01"

    /// Version 4: participants can withdraw. `withdrawal` keeps the kind (`session` or
    /// `calibration`), the id and the time of each erased one — no personal data — and a trigger
    /// refuses any later insert of those ids into `session` or `calibration`, from any role, with
    /// one sentence naming the withdrawal (`gazerec_refuse_withdrawn`, which a push also calls
    /// before it sends anything). `session.calibration_id` names the calibration that mapped a
    /// session's gaze, so an erasure finds the calibrations only the erased sessions used; sessions
    /// already stored get it from their documents (a document naming a stored calibration's id).
    private static func migration4(_ connection: PostgresConnection) throws {
        try connection.query("""
            CREATE TABLE withdrawal (
                kind text NOT NULL CHECK (kind IN ('session', 'calibration')),
                id text NOT NULL,
                withdrawn_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (kind, id)
            )
            """)
        try connection.query("ALTER TABLE withdrawal OWNER TO \(ownerRole)")
        try connection.query("""
            CREATE FUNCTION gazerec_refuse_withdrawn(text, text) RETURNS void LANGUAGE plpgsql AS $$
            DECLARE withdrawn timestamptz;
            BEGIN
                SELECT w.withdrawn_at INTO withdrawn FROM withdrawal w WHERE w.kind = $1 AND w.id = $2;
                IF FOUND THEN
                    RAISE EXCEPTION '% % was withdrawn from this lab server on % (its participant withdrew); it may not be pushed again',
                        $1, $2, to_char(withdrawn AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI "UTC"')
                        USING ERRCODE = '\(withdrawnState)';
                END IF;
            END $$
            """)
        try connection.query("""
            CREATE FUNCTION gazerec_not_withdrawn() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM gazerec_refuse_withdrawn(TG_TABLE_NAME::text, NEW.id);
                RETURN NEW;
            END $$
            """)
        for table in ["session", "calibration"] {
            try connection.query("CREATE TRIGGER \(table)_not_withdrawn BEFORE INSERT ON \(table) FOR EACH ROW "
                                 + "EXECUTE FUNCTION gazerec_not_withdrawn()")
        }
        try connection.query("ALTER TABLE session ADD COLUMN calibration_id text")
        // A calibration's id (a UUID) in a session's document; a part is searched with the start of
        // the next, so an id cut by a part's end is found too.
        try connection.query("""
            UPDATE session s SET calibration_id = c.id FROM calibration c
            WHERE EXISTS (
                SELECT FROM session_document d LEFT JOIN session_document n ON n.session_id = d.session_id AND n.part = d.part + 1
                WHERE d.session_id = s.id
                  AND position(convert_to(c.id, 'UTF8') IN d.bytes || COALESCE(substring(n.bytes FROM 1 FOR 64), ''::bytea)) > 0
            )
            """)
        try connection.query("CREATE INDEX session_calibration ON session (calibration_id)")
        try connection.query("INSERT INTO gazerec_schema (version) VALUES (4)")
    }
}
