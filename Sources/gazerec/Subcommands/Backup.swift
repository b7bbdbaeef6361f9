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
                database file alone is as good.
                """)

        @OptionGroup var store: StoreOptions

        @Argument(help: ArgumentHelp("The new file to write (an existing file is refused).", valueName: "destination"))
        var destination: String

        func run() throws {
            let database = try SessionDatabase.openForReading(path: store.resolvedPath)
            try database.backUp(to: destination)
            Console.note("copied \(store.resolvedPath) to \(destination)")
        }
    }
}
