import ArgumentParser
import Foundation
import SessionStore

extension Gazerec {
    /// `gazerec backup DEST`: a consistent copy of the whole database in one file, even while recording.
    struct Backup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a consistent copy of the session database to a new file, safe while a recorder runs.",
            discussion: """
                The copy is one self-contained SQLite file holding every session as of one moment (a \
                running session up to its last commit). When no gazerec command runs, copying the \
                database file alone is as good. The copy holds no saved face video: its sessions name the \
                original's videos, which deleting in the copy leaves alone (a copy in the database's own \
                folder, which would share its videos folder, is refused while sessions own videos). To \
                copy the videos too, copy the database's folder with no gazerec command running.
                """)

        @OptionGroup var store: StoreOptions

        @Argument(help: ArgumentHelp("The new file to write (an existing file is refused).", valueName: "destination"))
        var destination: String

        func run() throws {
            let database = try SessionDatabase.openForReading(path: store.resolvedPath)
            let videos = try database.backUp(to: destination)
            Console.note("copied \(store.resolvedPath) to \(destination)")
            if videos > 0 {
                Console.note("the copy does not hold the \(videos) saved video\(videos == 1 ? "" : "s") of its sessions: it names "
                             + "them where they lie beside \(store.resolvedPath), and deleting in the copy leaves them alone")
            }
        }
    }
}
