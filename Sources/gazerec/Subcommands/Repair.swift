import ArgumentParser
import Recorder
import SessionStore

extension Gazerec {
    /// `gazerec repair`: closes sessions whose recorder died.
    struct Repair: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Close sessions left open by a recorder that died (endTime = last sample, marked interrupted).")

        @OptionGroup var store: StoreOptions

        func run() throws {
            guard let database = try store.openExisting() else {
                Console.note("nothing to repair: \(store.resolvedPath) does not exist.")
                return
            }
            let running = RecorderLock.running(databasePath: store.resolvedPath)?.sessionID
            let repaired = try database.repairInterruptedSessions(except: running)
            Console.output(repaired.map { $0 + "\n" }.joined())
            Console.note("closed \(repaired.count) interrupted session\(repaired.count == 1 ? "" : "s")")
        }
    }
}
