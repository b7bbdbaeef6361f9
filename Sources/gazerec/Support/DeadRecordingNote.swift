import Recorder

extension DeadRecordings.Cleanup {
    /// Says on stderr which sessions were closed because their recorder had died (`list`, `push`), if any.
    func tellClosed() {
        guard !closedSessionIDs.isEmpty else { return }
        Console.note("closed \(Formatting.counted(closedSessionIDs.count, "session")) whose recorder had died: "
                     + closedSessionIDs.joined(separator: ", "))
    }
}
