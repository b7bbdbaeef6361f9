import Foundation
import GRDB

/// What `calibrations list` shows about a stored calibration; the full record is its JSON document.
public struct CalibrationSummary: Sendable, Equatable {
    /// Upper-case UUID string.
    public var id: String
    public var name: String?
    /// Unix seconds.
    public var createdAtSeconds: Double
    /// Screen the targets were placed on, screen points.
    public var screenWidth: Double
    public var screenHeight: Double
    /// Calibration targets (5, 9 or 13 for the built-in layouts).
    public var pointCount: Int
    /// Validation accuracy, screen points and (when the geometry was given) degrees.
    public var accuracyPoints: Double?
    public var accuracyDegrees: Double?

    public init(id: String, name: String?, createdAtSeconds: Double, screenWidth: Double, screenHeight: Double,
                pointCount: Int, accuracyPoints: Double?, accuracyDegrees: Double?) {
        self.id = id
        self.name = name
        self.createdAtSeconds = createdAtSeconds
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.pointCount = pointCount
        self.accuracyPoints = accuracyPoints
        self.accuracyDegrees = accuracyDegrees
    }
}

/// The `calibration` table: one row per calibration, its JSON document beside the columns
/// listing and choosing need (it is always read and written whole, ≈ 100 kB).
///
/// The only code that writes SQL for this table.
enum CalibrationTable {
    /// The table's columns.
    enum Columns: String, TableColumn {
        case rowid, id, name, createdAt, screenWidth, screenHeight, pointCount, accuracyPoints, accuracyDegrees, document
    }

    /// A stored calibration: its summary and document.
    struct Record: FetchableRecord {
        var summary: CalibrationSummary
        var document: String

        init(row: Row) throws {
            summary = CalibrationSummary(
                id: try row.decode(forColumn: Columns.id), name: try row.decode(forColumn: Columns.name), createdAtSeconds: try row.decode(forColumn: Columns.createdAt),
                screenWidth: try row.decode(forColumn: Columns.screenWidth), screenHeight: try row.decode(forColumn: Columns.screenHeight),
                pointCount: try row.decode(forColumn: Columns.pointCount), accuracyPoints: try row.decode(forColumn: Columns.accuracyPoints),
                accuracyDegrees: try row.decode(forColumn: Columns.accuracyDegrees))
            document = try row.decode(forColumn: Columns.document)
            // A row changed outside gazerec must not reach a reader as a size no screen has.
            let size = [summary.screenWidth, summary.screenHeight]
            guard size.allSatisfy({ $0 > 0 && $0 <= StoredValueTable.quantityBound }),
                  abs(summary.createdAtSeconds) <= StoredValueTable.timeBound else {
                throw CalibrationDamage(id: summary.id, detail: "its screen size \(summary.screenWidth)×\(summary.screenHeight) or its "
                                        + "time \(summary.createdAtSeconds) is not one gazerec stores")
            }
        }
    }

    /// A stored calibration row holding what gazerec never writes; told as `StoreError.database`.
    struct CalibrationDamage: Error {
        var id: String
        var detail: String
    }

    /// The full id of the calibration `id` names (case-insensitive), or nil.
    ///
    /// As for sessions, a shorter prefix of at least 4 characters names the one calibration whose
    /// id starts with it; a prefix that fits several throws `ambiguousCalibration`.
    static func fullID(_ db: Database, naming id: String) throws -> String? {
        let key = id.uppercased()
        if try exists(db, id: key) { return key }
        guard key.count >= 4, key.count < 36, key.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return nil }
        let matches = try String.fetchAll(db, sql: """
            SELECT \(Columns.id) FROM calibration WHERE substr(\(Columns.id), 1, ?) = ? ORDER BY \(Columns.id) LIMIT 5
            """,
                                          arguments: [key.count, key])
        if matches.count > 1 { throw StoreError.ambiguousCalibration(prefix: id, matches: matches) }
        return matches.first
    }

    /// Whether a calibration with this (upper-case) id is stored.
    static func exists(_ db: Database, id: String) throws -> Bool {
        try Int64.fetchOne(db, sql: "SELECT \(Columns.rowid) FROM calibration WHERE \(Columns.id) = ?", arguments: [id]) != nil
    }

    /// The columns an insert sets, in its parameters' order.
    private static let inserted: [Columns] = [.id, .name, .createdAt, .screenWidth, .screenHeight, .pointCount, .accuracyPoints,
                                              .accuracyDegrees, .document]

    /// Inserts a calibration under its upper-case id.
    static func insert(_ db: Database, summary: CalibrationSummary, document: String) throws {
        try db.execute(sql: """
            INSERT INTO calibration (\(inserted.names)) VALUES (\(inserted.placeholders))
            """, arguments: [summary.id.uppercased(), summary.name, summary.createdAtSeconds, summary.screenWidth,
                             summary.screenHeight, summary.pointCount, summary.accuracyPoints,
                             summary.accuracyDegrees, document])
    }

    /// Every calibration, oldest first.
    static func all(_ db: Database) throws -> [Record] {
        try Record.fetchAll(db, sql: "SELECT * FROM calibration ORDER BY \(Columns.createdAt), \(Columns.id)")
    }

    /// The newest calibration, for this screen size when given.
    static func latest(_ db: Database, screenWidth: Double? = nil, screenHeight: Double? = nil) throws -> Record? {
        if let screenWidth, let screenHeight {
            return try Record.fetchOne(db, sql: """
                SELECT * FROM calibration WHERE \(Columns.screenWidth) = ? AND \(Columns.screenHeight) = ?
                ORDER BY \(Columns.createdAt) DESC, \(Columns.rowid) DESC LIMIT 1
                """, arguments: [screenWidth, screenHeight])
        }
        return try Record.fetchOne(db, sql: "SELECT * FROM calibration ORDER BY \(Columns.createdAt) DESC, \(Columns.rowid) DESC LIMIT 1")
    }

    /// The ids of the calibrations named exactly `name`.
    static func ids(_ db: Database, named name: String) throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT \(Columns.id) FROM calibration WHERE \(Columns.name) = ? ORDER BY \(Columns.createdAt), \(Columns.id)
            """, arguments: [name])
    }

    /// The calibration with this (upper-case) id.
    static func record(_ db: Database, id: String) throws -> Record? {
        try Record.fetchOne(db, sql: "SELECT * FROM calibration WHERE \(Columns.id) = ?", arguments: [id])
    }

    /// Deletes the calibration with this (upper-case) id; returns whether there was one.
    @discardableResult
    static func delete(_ db: Database, id: String) throws -> Bool {
        try db.execute(sql: "DELETE FROM calibration WHERE \(Columns.id) = ?", arguments: [id])
        return db.changesCount > 0
    }
}

extension SessionDatabase {
    /// Stores calibrations in one transaction. An id already stored fails the whole call unless
    /// `replace` (then it is overwritten); `source` names where they came from, for the message.
    public func saveCalibrations(_ calibrations: [(summary: CalibrationSummary, document: String)], replace: Bool,
                                 source: String) throws {
        try write("save calibrations") { db in
            for (summary, document) in calibrations {
                let id = summary.id.uppercased()
                if try CalibrationTable.exists(db, id: id) {
                    guard replace else { throw StoreError.calibrationExists(id: id, source: source) }
                    try CalibrationTable.delete(db, id: id)
                }
                try CalibrationTable.insert(db, summary: summary, document: document)
            }
        }
    }

    /// Every stored calibration, oldest first.
    public func calibrations() throws -> [CalibrationSummary] {
        try read("list calibrations") { db in try CalibrationTable.all(db).map(\.summary) }
    }

    /// The newest calibration, for this screen size when given; nil if there is none.
    public func latestCalibration(screenWidth: Double? = nil, screenHeight: Double? = nil) throws -> CalibrationSummary? {
        try read("find the latest calibration") { db in
            try CalibrationTable.latest(db, screenWidth: screenWidth, screenHeight: screenHeight)?.summary
        }
    }

    /// The summary and JSON document of one calibration: its id, a unique prefix of it (at least 4
    /// characters), or `latest` for the newest.
    public func calibration(id: String) throws -> (summary: CalibrationSummary, document: String) {
        try read("read calibration \(id)") { db in
            let record = id.lowercased() == "latest"
                ? try CalibrationTable.latest(db)
                : try CalibrationTable.fullID(db, naming: id).flatMap { try CalibrationTable.record(db, id: $0) }
            guard let record else { throw StoreError.unknownCalibration(id: id, databasePath: path) }
            return (record.summary, record.document)
        }
    }

    /// Deletes calibrations (ids or unique prefixes) in one transaction; if any is unknown, deletes none. Sessions
    /// recorded with them keep their scan paths (and the calibration's id in their extension).
    public func deleteCalibrations(ids: [String]) throws {
        try write("delete calibrations") { db in
            for id in ids {
                guard let full = try CalibrationTable.fullID(db, naming: id), try CalibrationTable.delete(db, id: full) else {
                    throw StoreError.unknownCalibration(id: id, databasePath: path)
                }
            }
        }
    }
}
