import ArgumentParser
import Foundation
import SessionStore

extension Gazerec {
    /// `gazerec check`: names every damaged session of a database.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the session database for damage: print the id of every damaged session.",
            discussion: """
                A session is damaged when rows are missing from any of its stored series (frames, gaze \
                and blend-shape samples, blinks, expressions, markers) or SQLite finds its pages corrupt; \
                SQLite's own quick check of the whole file runs too. Damaged sessions' ids go to stdout, \
                one a line, what is wrong to stderr; exit status 1 when anything is damaged. show and \
                export refuse damaged sessions; export --all leaves them out and names them. The file \
                is only read.
                """)

        @OptionGroup var store: StoreOptions

        func run() throws {
            let database = try SessionDatabase.openForReading(path: store.resolvedPath)
            let (sessions, file) = try database.check()
            for damage in sessions {
                Console.output(damage.id + "\n")
                Console.error(ErrorHints.message(for: StoreError.damagedSession(id: damage.id, databasePath: database.path,
                                                                                detail: damage.detail)))
            }
            let lines = file.flatMap { $0.split(separator: "\n").map(String.init) }.filter { !$0.hasPrefix("***") }
            for line in lines.prefix(5) { Console.error("SQLite's check of \(database.path): \(line)") }
            if lines.count > 5 { Console.error("SQLite's check of \(database.path): \(lines.count - 5) more findings.") }
            guard sessions.isEmpty && file.isEmpty else { throw ExitCode.failure }
            Console.note("\(database.path) is sound.")
        }
    }
}
