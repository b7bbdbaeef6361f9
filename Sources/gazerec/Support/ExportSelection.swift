/// The sessions an export writes, as the station and the lab server's export both choose them.
enum ExportSelection {
    /// The note that `repeated` ids named a session already given, if any did.
    static func noteRepeated(_ repeated: Int) {
        guard repeated > 0 else { return }
        Console.note("\(repeated) id\(repeated == 1 ? "" : "s") named a session already given; each session is exported once")
    }
}
