import GRDB

/// Telling a damaged session from a sound one before its rows are read as data.
extension SessionDatabase {
    /// One damaged session and what is wrong with it.
    public struct Damage: Equatable, Sendable {
        public var id: String
        public var detail: String
    }

    /// Throws `StoreError.damagedSession` when session `id`'s stored rows are not whole: a series
    /// missing rows from its numbering, or pages SQLite finds corrupt while counting them.
    ///
    /// Costs one count per stored series (no row is decoded); see docs/Performance.md.
    public func verify(id: String) throws {
        if let detail = try damage(id: id) {
            throw StoreError.damagedSession(id: id, databasePath: path, detail: detail)
        }
    }

    /// What is wrong with session `id`, or nil when its stored rows are whole.
    public func damage(id: String) throws -> String? {
        // SQLite's corruption error can surface at the statement or when the read ends: caught
        // around the whole read, and told as this session's damage.
        try guarded("check session \(id)") {
            do {
                let gaps = try writer.read { db in
                    try SequenceTable.spans(db, sessionRowID: try sessionRowID(db, id: id)).filter { $0.missing > 0 }
                }
                guard !gaps.isEmpty else { return nil }
                return gaps.map { "\($0.missing) of \($0.missing + $0.count) \($0.series) missing" }.joined(separator: ", ")
            } catch let error as DatabaseError where Self.isCorruption(error) {
                return "SQLite reports its pages corrupt (\(error.message ?? "\(error.resultCode)"))"
            }
        }
    }

    /// Every damaged session of the database, oldest first, and SQLite's own findings on the whole
    /// file (`PRAGMA quick_check`; empty when it finds nothing).
    public func check() throws -> (sessions: [Damage], file: [String]) {
        let ids = try read("list the sessions") { db in try SessionTable.ids(db) }
        var sessions: [Damage] = []
        for id in ids {
            if let detail = try damage(id: id) { sessions.append(Damage(id: id, detail: detail)) }
        }
        let file = try guarded("check the file") {
            do {
                return try writer.read { db in try SequenceTable.quickCheck(db) }
            } catch let error as DatabaseError where Self.isCorruption(error) {
                return [error.message ?? "\(error.resultCode)"]
            }
        }
        return (sessions, file)
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
