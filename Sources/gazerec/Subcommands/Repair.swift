import ArgumentParser
import Recorder
import SessionStore

extension Gazerec {
    /// `gazerec repair`: closes sessions whose recorder died and links the videos they left unnamed.
    struct Repair: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Close sessions left open by a recorder that died (endTime = last sample, marked interrupted).",
            discussion: """
                Also links each video in the videos folder beside the database that a dead recorder \
                left unnamed by its session (videos/<session id>.mkv) to that session, so delete \
                removes it. A video whose session this database does not hold is named on stderr and \
                kept: it may belong to another database in the same folder. Removes the lock and \
                status files a dead recorder left beside the database.
                """)

        @OptionGroup var store: StoreOptions

        func run() throws {
            guard let database = try store.openExisting() else {
                Console.note("nothing to repair: \(store.resolvedPath) does not exist.")
                return
            }
            let cleanup = try DeadRecordings.close(in: database)
            for path in cleanup.removedFiles { Console.note("removed \(path), left by a recorder that died") }
            let repaired = cleanup.closedSessionIDs
            Console.output(repaired.map { $0 + "\n" }.joined())
            Console.note("closed \(repaired.count) interrupted session\(repaired.count == 1 ? "" : "s")")
            let videos = try database.repairOrphanedVideos(except: cleanup.runningSessionID)
            for video in videos.linked { Console.note("linked \(video.path) to session \(video.id)") }
            for path in videos.unclaimed {
                Console.note("\(path): the video of a session this database does not hold; kept (it may be "
                             + "another database's in this folder); if no database here holds that session, remove it by hand")
            }
        }
    }
}
