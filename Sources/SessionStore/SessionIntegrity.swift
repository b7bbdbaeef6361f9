import Foundation
import GRDB
import JSONStream

/// Telling a damaged session from a sound one before its rows are read as data.
extension SessionDatabase {
    /// One damaged session and what is wrong with it.
    public struct Damage: Equatable, Sendable {
        public var id: String
        public var detail: String
    }

    /// Throws `StoreError.damagedSession` when session `id`'s stored rows are not whole: a series
    /// missing rows from its numbering, pages SQLite finds corrupt while counting them, or a stored
    /// value that is not what gazerec writes there (`StoredValueTable`).
    ///
    /// Costs one count per stored series (no row is decoded); see docs/Performance.md.
    public func verify(id: String) throws {
        if let detail = try damage(id: id) {
            throw StoreError.damagedSession(id: id, databasePath: path, detail: detail)
        }
    }

    /// What is wrong with session `id`, or nil when its stored rows are whole.
    public func damage(id: String) throws -> String? {
        try assessment(id: id).detail
    }

    /// What is wrong with session `id` (nil when its stored rows are whole), and whether every
    /// series of it has a stored length, so that its rows were counted against the writer's own
    /// count and not against their numbering alone (which cannot see rows lost from the end).
    func assessment(id: String) throws -> (detail: String?, lengthsStored: Bool) {
        // SQLite's corruption error can surface at the statement or when the read ends: caught
        // around the whole read, and told as this session's damage.
        try guarded("check session \(id)") {
            do {
                return try writer.read { db in try Self.assessment(db, sessionRowID: try sessionRowID(db, id: id)) }
            } catch let error as DatabaseError where Self.isCorruption(error) {
                return (Self.corruption(error), true)
            } catch is RowDecodingError {
                return (Self.undecodableDetail, true)
            }
        }
    }

    /// `assessment(id:)` of the session `sessionRowID` inside the caller's transaction; SQLite's
    /// corruption error is thrown.
    static func assessment(_ db: Database, sessionRowID rowid: Int64) throws -> (detail: String?, lengthsStored: Bool) {
        let spans = try SequenceTable.spans(db, sessionRowID: rowid)
        let detail = [gaps(spans), try StoredValueTable.damage(db, sessionRowID: rowid)].compactMap { $0 }
        return (detail.isEmpty ? nil : detail.joined(separator: "; "), spans.allSatisfy { $0.recorded != nil })
    }

    /// Throws `StoreError.damagedSession` when session `sessionRowID` is damaged, inside the
    /// caller's (writing) transaction: a rewrite of part of a session must not store new series
    /// lengths over a damaged one and so make it look sound.
    func refuseDamaged(_ db: Database, id: String, sessionRowID rowid: Int64) throws {
        let detail: String?
        do {
            detail = try Self.assessment(db, sessionRowID: rowid).detail
        } catch let error as DatabaseError where Self.isCorruption(error) {
            detail = Self.corruption(error)
        } catch is RowDecodingError {
            detail = Self.undecodableDetail
        }
        if let detail { throw StoreError.damagedSession(id: id, databasePath: path, detail: detail) }
    }

    /// A stored value of the wrong type (a number where text was written) said as a damage detail.
    static let undecodableDetail = "a stored value is not of the type gazerec wrote there"

    /// Every damaged session of the database, oldest first, and SQLite's own findings on the whole
    /// file (`PRAGMA quick_check`; empty when it finds nothing).
    ///
    /// When SQLite finds pages corrupt, a session is cleared only when each of its series holds as
    /// many rows as its writer stored (`SeriesLengthTable`); a session stored before lengths were
    /// kept cannot be cleared, as rows lost from a series' end leave its numbering whole, and is
    /// named damaged too.
    public func check() throws -> (sessions: [Damage], file: [String]) {
        let ids = try read("list the sessions") { db in try SessionTable.ids(db) }
        let file = try guarded("check the file") {
            do {
                return try writer.read { db in try SequenceTable.quickCheck(db) }
            } catch let error as DatabaseError where Self.isCorruption(error) {
                return [error.message ?? "\(error.resultCode)"]
            }
        }
        var sessions: [Damage] = []
        for id in ids {
            let (detail, lengthsStored) = try assessment(id: id)
            if let detail {
                sessions.append(Damage(id: id, detail: detail))
            } else if !file.isEmpty && !lengthsStored {
                sessions.append(Damage(id: id, detail: Self.uncleared))
            }
        }
        return (sessions, file)
    }

    /// Why a session stored before series lengths were kept is named when SQLite finds the file's
    /// pages corrupt.
    static let uncleared = "SQLite reports pages of the file corrupt, and this session was stored before gazerec kept "
        + "the length of each series, so rows lost from a series' end cannot be ruled out"

    /// The series of session `sessionRowID` missing rows from their numbering, said as a damage
    /// detail (nil when none is); a series in `tally` was read whole and is not counted again.
    static func gaps(_ db: Database, sessionRowID: Int64, tally: SequenceTable.Tally = [:]) throws -> String? {
        gaps(try SequenceTable.spans(db, sessionRowID: sessionRowID, tally: tally))
    }

    /// The spans missing rows said as a damage detail (nil when none is).
    static func gaps(_ spans: [SequenceTable.Span]) -> String? {
        let gaps = spans.filter { $0.missing > 0 }
        guard !gaps.isEmpty else { return nil }
        return gaps.map { "\($0.missing) of \($0.missing + $0.count) \($0.series) missing" }.joined(separator: ", ")
    }

    /// SQLite's corruption error said as a damage detail.
    static func corruption(_ error: DatabaseError) -> String {
        "SQLite reports its pages corrupt (\(error.message ?? "\(error.resultCode)"))"
    }

    /// Whether SQLite refused because the file's pages are not what it wrote.
    static func isCorruption(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }
}

extension SessionDatabase {
    /// Splits `ids` into the sound sessions (in order) and an error for each damaged one.
    public func separateDamaged(_ ids: [String]) throws -> (sound: [String], damaged: [StoreError]) {
        var sound: [String] = []
        var damaged: [StoreError] = []
        for id in ids {
            if let detail = try damage(id: id) {
                damaged.append(.damagedSession(id: id, databasePath: path, detail: detail))
            } else {
                sound.append(id)
            }
        }
        return (sound, damaged)
    }
}

/// A session an export found damaged while reading it, inside its read transaction; told as
/// `StoreError.damagedSession` once the transaction has ended (`SessionDatabase.readVerifying`).
struct DamageFound: Error {
    var id: String
    var detail: String
}

extension SessionDatabase {
    /// Runs `write`, which writes session `id` and returns the rows it read whole per series, and
    /// then checks the session's numbering against those counts (series not read are counted
    /// here): the export's own read is the check, and no second pass over the rows is made. Throws
    /// `DamageFound` when a series misses rows or SQLite finds the session's pages corrupt.
    static func verifying(_ db: Database, id: String, sessionRowID: Int64, _ write: () throws -> SequenceTable.Tally) throws {
        do {
            // Values first: a writer must never meet a value it cannot represent.
            if let detail = try StoredValueTable.damage(db, sessionRowID: sessionRowID) {
                throw DamageFound(id: id, detail: detail)
            }
            let tally = try write()
            if let detail = try gaps(db, sessionRowID: sessionRowID, tally: tally) {
                throw DamageFound(id: id, detail: detail)
            }
        } catch let error as DatabaseError where isCorruption(error) {
            throw DamageFound(id: id, detail: corruption(error))
        } catch is RowDecodingError {
            throw DamageFound(id: id, detail: undecodableDetail)
        }
    }

    /// Runs `body` in a read transaction as `read` does; a session it found damaged is thrown as
    /// `StoreError.damagedSession`, worded as `damage(id:)` words it.
    func readVerifying<T>(_ action: String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try read(action, body)
        } catch let found as DamageFound {
            let detail = (try? damage(id: found.id)) ?? nil
            throw StoreError.damagedSession(id: found.id, databasePath: path, detail: detail ?? found.detail)
        }
    }
}
