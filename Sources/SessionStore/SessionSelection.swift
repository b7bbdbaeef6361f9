/// Sessions named for one export.
public enum SessionSelection {
    /// Each session once, in the order first named (an id given twice, or with a prefix of it,
    /// would write the session twice, and such an export could not be imported), and how many
    /// of `ids` named a session already given.
    public static func once(_ ids: [String]) -> (ids: [String], repeated: Int) {
        var seen: Set<String> = []
        let unique = ids.filter { seen.insert($0).inserted }
        return (unique, ids.count - unique.count)
    }
}
