import SessionStore

/// The sessions an export writes, as the station and the lab server's export both choose them.
enum ExportSelection {
    /// Each session once (`SessionSelection.once`), with a note when some were named twice.
    static func once(_ ids: [String]) -> [String] {
        let (unique, repeated) = SessionSelection.once(ids)
        if repeated > 0 {
            Console.note("\(repeated) id\(repeated == 1 ? "" : "s") named a session already given; each session is exported once")
        }
        return unique
    }
}
