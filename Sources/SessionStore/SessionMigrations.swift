import GRDB

/// The session database's schema: its migrations, in the order they shipped.
enum SessionMigrations {
    /// Migrations are never edited once shipped; add a new one instead.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: sessions and samples", migrate: createSessionsAndSamples)
        migrator.registerMigration("v2: per-frame features and blink events", migrate: createFramesAndBlinks)
        migrator.registerMigration("v3: calibrations", migrate: createCalibrations)
        migrator.registerMigration("v4: per-frame eye appearance", migrate: addFrameAppearance)
        migrator.registerMigration("v5: event markers", migrate: createMarkers)
        migrator.registerMigration("v6: per-frame expressions", migrate: createExpressions)
        migrator.registerMigration("v7: series lengths", migrate: createSeriesLengths)
        migrator.registerMigration("v8: presentations", migrate: createPresentations)
        return migrator
    }

    /// Migration "v1: sessions and samples".
    private static func createSessionsAndSamples(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE session (
                rowid INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                appID TEXT NOT NULL,
                beginTime REAL NOT NULL,
                endTime REAL,
                deviceModel TEXT NOT NULL,
                screenWidth REAL NOT NULL,
                screenHeight REAL NOT NULL,
                systemName TEXT NOT NULL,
                systemVersion TEXT NOT NULL,
                extensionJSON TEXT,
                interrupted INTEGER NOT NULL DEFAULT 0,
                recorderPID INTEGER
            );
            CREATE TABLE gazeSample (
                sessionRowID INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                timestamp REAL NOT NULL,
                x REAL NOT NULL,
                y REAL NOT NULL,
                orientation INTEGER NOT NULL,
                trackingState TEXT,
                PRIMARY KEY (sessionRowID, seq)
            ) WITHOUT ROWID;
            CREATE TABLE blendShapeSeries (
                rowid INTEGER PRIMARY KEY,
                sessionRowID INTEGER NOT NULL REFERENCES session(rowid) ON DELETE CASCADE,
                name TEXT NOT NULL,
                UNIQUE (sessionRowID, name)
            );
            CREATE TABLE blendShapeSample (
                seriesRowID INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                timestamp REAL NOT NULL,
                value REAL NOT NULL,
                orientation INTEGER NOT NULL,
                trackingState TEXT,
                PRIMARY KEY (seriesRowID, seq)
            ) WITHOUT ROWID;
            -- Samples carry no foreign key (a parent lookup per inserted sample halves import
            -- speed); this trigger keeps them from outliving their session instead.
            CREATE TRIGGER sessionDeletesSamples BEFORE DELETE ON session BEGIN
                DELETE FROM gazeSample WHERE sessionRowID = OLD.rowid;
                DELETE FROM blendShapeSample
                    WHERE seriesRowID IN (SELECT rowid FROM blendShapeSeries WHERE sessionRowID = OLD.rowid);
                DELETE FROM blendShapeSeries WHERE sessionRowID = OLD.rowid;
            END;
            """)
    }

    /// Migration "v2: per-frame features and blink events".
    private static func createFramesAndBlinks(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE frameSample (
                sessionRowID INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                timestamp REAL NOT NULL,
                trackingState TEXT NOT NULL,
                confidence REAL NOT NULL,
                opennessLeft REAL,
                opennessRight REAL,
                pupilLeftU REAL,
                pupilLeftV REAL,
                pupilRightU REAL,
                pupilRightV REAL,
                yawDegrees REAL,
                pitchDegrees REAL,
                rollDegrees REAL,
                tx REAL,
                ty REAL,
                tz REAL,
                PRIMARY KEY (sessionRowID, seq)
            ) WITHOUT ROWID;
            CREATE TABLE blinkEvent (
                sessionRowID INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                start REAL NOT NULL,
                end REAL NOT NULL,
                eyes TEXT NOT NULL,
                kind TEXT NOT NULL,
                minimumOpenness REAL NOT NULL,
                PRIMARY KEY (sessionRowID, seq)
            ) WITHOUT ROWID;
            DROP TRIGGER sessionDeletesSamples;
            CREATE TRIGGER sessionDeletesSamples BEFORE DELETE ON session BEGIN
                DELETE FROM gazeSample WHERE sessionRowID = OLD.rowid;
                DELETE FROM blendShapeSample
                    WHERE seriesRowID IN (SELECT rowid FROM blendShapeSeries WHERE sessionRowID = OLD.rowid);
                DELETE FROM blendShapeSeries WHERE sessionRowID = OLD.rowid;
                DELETE FROM frameSample WHERE sessionRowID = OLD.rowid;
                DELETE FROM blinkEvent WHERE sessionRowID = OLD.rowid;
            END;
            """)
    }

    /// Migration "v3: calibrations".
    private static func createCalibrations(_ db: Database) throws {
        // Calibrations are read and written whole (the fit, its targets and raw samples, as one
        // JSON document of ≈ 100 kB); the columns beside it are what listing and choosing need.
        try db.execute(sql: """
            CREATE TABLE calibration (
                rowid INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                name TEXT,
                createdAt REAL NOT NULL,
                screenWidth REAL NOT NULL,
                screenHeight REAL NOT NULL,
                pointCount INTEGER NOT NULL,
                accuracyPoints REAL,
                accuracyDegrees REAL,
                document TEXT NOT NULL
            );
            CREATE INDEX calibrationByScreen ON calibration (screenWidth, screenHeight, createdAt);
            """)
    }

    /// Migration "v4: per-frame eye appearance".
    private static func addFrameAppearance(_ db: Database) throws {
        // EyeAppearance.encoded (801 bytes): the stabilised landmarks and eye patches a
        // calibration maps; NULL for frames without a face and frames recorded before.
        try db.execute(sql: "ALTER TABLE frameSample ADD COLUMN appearance BLOB")
    }

    /// Migration "v5: event markers".
    private static func createMarkers(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE marker (
                sessionRowID INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                timestamp REAL NOT NULL,
                label TEXT NOT NULL,
                data TEXT,
                PRIMARY KEY (sessionRowID, seq)
            ) WITHOUT ROWID;
            DROP TRIGGER sessionDeletesSamples;
            CREATE TRIGGER sessionDeletesSamples BEFORE DELETE ON session BEGIN
                DELETE FROM gazeSample WHERE sessionRowID = OLD.rowid;
                DELETE FROM blendShapeSample
                    WHERE seriesRowID IN (SELECT rowid FROM blendShapeSeries WHERE sessionRowID = OLD.rowid);
                DELETE FROM blendShapeSeries WHERE sessionRowID = OLD.rowid;
                DELETE FROM frameSample WHERE sessionRowID = OLD.rowid;
                DELETE FROM blinkEvent WHERE sessionRowID = OLD.rowid;
                DELETE FROM marker WHERE sessionRowID = OLD.rowid;
            END;
            """)
    }

    /// Migration "v6: per-frame expressions".
    private static func createExpressions(_ db: Database) throws {
        // ExpressionSample: the seven probabilities (0…1) of a frame with a face, for recordings
        // asked for expressions. Its own trigger deletes a session's rows with it, as
        // sessionDeletesSamples does for the other sample tables (which carry no foreign key).
        try db.execute(sql: """
            CREATE TABLE expressionSample (
                sessionRowID INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                timestamp REAL NOT NULL,
                neutral REAL NOT NULL,
                happy REAL NOT NULL,
                surprise REAL NOT NULL,
                sad REAL NOT NULL,
                angry REAL NOT NULL,
                disgust REAL NOT NULL,
                fear REAL NOT NULL,
                PRIMARY KEY (sessionRowID, seq)
            ) WITHOUT ROWID;
            CREATE TRIGGER sessionDeletesExpressions BEFORE DELETE ON session BEGIN
                DELETE FROM expressionSample WHERE sessionRowID = OLD.rowid;
            END;
            """)
    }

    /// Migration "v7: series lengths".
    private static func createSeriesLengths(_ db: Database) throws {
        // seriesLengths: a JSON object, series → how many rows it held when gazerec last closed,
        // imported or rewrote the session (`SeriesLengthTable`), so rows lost from a series' end
        // are told from a whole series. In the session row, so a recording's close writes no page
        // more than before (a close on a full disk still fits where the refused batch was).
        // Sessions stored before this migration have none (NULL).
        try db.execute(sql: "ALTER TABLE session ADD COLUMN seriesLengths TEXT")
    }

    /// Migration "v8: presentations".
    private static func createPresentations(_ db: Database) throws {
        // What the presenter showed (`PresentationTable`): a row per presentation keyed by its
        // index (seq), rewritten whole as it goes on; its events and the player's clock samples
        // as logs numbered across the session, naming their presentation. Times are session
        // clock seconds (timestamp, onset, offset), positions the stimulus's own seconds, the
        // rectangle screen points. Its own trigger deletes a session's rows with it.
        try db.execute(sql: """
            CREATE TABLE presentation (
                sessionRowID INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                label TEXT NOT NULL,
                kind TEXT NOT NULL,
                fileName TEXT,
                byteSize INTEGER,
                sha256 TEXT,
                durationSeconds REAL,
                frameRate REAL,
                widthPixels INTEGER,
                heightPixels INTEGER,
                rectX REAL,
                rectY REAL,
                rectWidth REAL,
                rectHeight REAL,
                onset REAL NOT NULL,
                offset REAL,
                ending TEXT,
                endingReason TEXT,
                PRIMARY KEY (sessionRowID, seq)
            ) WITHOUT ROWID;
            CREATE TABLE presentationEvent (
                sessionRowID INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                presentation INTEGER NOT NULL,
                kind TEXT NOT NULL,
                timestamp REAL NOT NULL,
                stimulusSeconds REAL NOT NULL,
                fromStimulusSeconds REAL,
                PRIMARY KEY (sessionRowID, seq)
            ) WITHOUT ROWID;
            CREATE TABLE playbackSample (
                sessionRowID INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                presentation INTEGER NOT NULL,
                timestamp REAL NOT NULL,
                stimulusSeconds REAL NOT NULL,
                PRIMARY KEY (sessionRowID, seq)
            ) WITHOUT ROWID;
            CREATE TRIGGER sessionDeletesPresentations BEFORE DELETE ON session BEGIN
                DELETE FROM presentation WHERE sessionRowID = OLD.rowid;
                DELETE FROM presentationEvent WHERE sessionRowID = OLD.rowid;
                DELETE FROM playbackSample WHERE sessionRowID = OLD.rowid;
            END;
            """)
    }
}
