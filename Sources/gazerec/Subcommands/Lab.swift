import ArgumentParser
import Foundation
import LabServer

extension Gazerec {
    /// `gazerec lab`: a lab server's schema and its roles, for the lab's admin.
    struct Lab: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set up a lab's PostgreSQL server: its schema, and a role for each station and analyst.",
            discussion: """
                Run by the lab's admin with the address of an administrator of the server (--server \
                postgres://postgres@lab-server/gazerec; the password from PGPASSFILE, ~/.pgpass or \
                PGPASSWORD). Each station pushes as its own role, which the server records with every \
                session; a station adds its own sessions, reads only those and changes nothing already \
                pushed; an analyst reads every session and may replace or delete. When a participant \
                withdraws, 'gazerec lab erase' removes their sessions from the server for good (docs/Lab.md).
                """,
            subcommands: [Initialise.self, AddStation.self, AddAnalyst.self, ListStations.self, Erase.self])
    }
}

/// `--server ADMIN_URL`, shared by the lab commands.
struct LabServerOption: ParsableArguments {
    @Option(help: ArgumentHelp("The lab's database, as an administrator of the server: a PostgreSQL URI.",
                               valueName: "admin-url"))
    var server: String
}

extension Gazerec.Lab {
    /// `gazerec lab init`: creates or migrates the schema, its group roles and its rules.
    struct Initialise: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Create or migrate the lab's schema, its group roles and their rights (safe to run again).")

        @OptionGroup var options: LabServerOption

        func run() throws {
            let administration = try LabAdministration(address: options.server)
            let (before, now) = try administration.setUp()
            let change = before == 0 ? "created the lab's schema (version \(now))"
                : before < now ? "migrated the lab's schema from version \(before) to \(now)"
                : "the lab's schema is at version \(now); roles and rights checked"
            Console.note("\(change) in \(options.server)")
        }
    }

    /// `gazerec lab add-station NAME`: a login role for one station.
    struct AddStation: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-station",
            abstract: "Add a station's role; print the address the station pushes to.",
            discussion: "The station keeps its password in its PGPASSFILE or ~/.pgpass (mode 0600).")

        @OptionGroup var role: LabRoleArguments

        func run() throws { try role.add(as: .station) }
    }

    /// `gazerec lab add-analyst NAME`: a login role for one analyst.
    struct AddAnalyst: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-analyst",
            abstract: "Add an analyst's role (reads every session); print the address it reads from.")

        @OptionGroup var role: LabRoleArguments

        func run() throws { try role.add(as: .analyst) }
    }

    /// `gazerec lab list-stations`: the station roles, one a line.
    struct ListStations: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list-stations",
            abstract: "Print the lab's station roles, one per line.")

        @OptionGroup var options: LabServerOption

        func run() throws {
            let stations = try LabAdministration(address: options.server).stations()
            Console.output(stations.map { $0 + "\n" }.joined())
        }
    }
}

extension Gazerec.Lab {
    /// `gazerec lab erase (ID... | --app-id LABEL) --server ADMIN_URL`: a participant withdraws.
    struct Erase: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "erase",
            abstract: "Erase a withdrawn participant's sessions and calibrations from the server; refuse them for good.",
            discussion: """
                In one transaction: every row of the sessions (ids, or every session of --app-id LABEL), \
                the calibrations only they used (and, with --app-id, the calibrations named LABEL), and an \
                id given that names a calibration. Their ids are kept as withdrawn (ids and the time, \
                nothing else), and the server refuses any later push of them from any station. Prints the \
                ids erased, one per line. Delete the station's own copies with 'gazerec delete --app-id \
                LABEL' on each station; exported files are removed by hand (docs/Lab.md, Withdrawal).
                """)

        @Argument(help: "Ids (or unambiguous prefixes) of the sessions, or calibrations, to erase.")
        var ids: [String] = []

        @Option(help: ArgumentHelp("Erase every session recorded with this app id.", valueName: "label"))
        var appID: String?

        @OptionGroup var options: LabServerOption

        func validate() throws {
            if ids.isEmpty == (appID == nil) {
                throw ValidationError("Say whom to erase: session ids, or --app-id LABEL (one of them).")
            }
            if let appID { try LabelArgument.check(appID, as: "--app-id") }
        }

        func run() throws {
            let request: LabErasureRequest = appID.map { .appID($0) } ?? .ids(ids)
            let erasure = try LabAdministration(address: options.server).erase(request)
            Console.output((erasure.sessionIDs + erasure.calibrationIDs).map { $0 + "\n" }.joined())
            for id in erasure.alreadyWithdrawn { Console.note("\(id) was withdrawn before: nothing left to erase") }
            for id in erasure.calibrationIDs {
                guard let sessions = erasure.sharedWithKeptSessions[id] else { continue }
                Console.note(Formatting.calibrationSharedNote(id, named: appID, keptSessions: sessions))
            }
            Console.note("erased \(Formatting.counted(erasure.sessionIDs.count, "session")) and "
                         + "\(Formatting.counted(erasure.calibrationIDs.count, "calibration")) from \(options.server); "
                         + "their ids are kept as withdrawn and a push of them is refused")
        }
    }
}

/// NAME, the server and the password file of a new station or analyst role.
struct LabRoleArguments: ParsableArguments {
    @Argument(help: ArgumentHelp("The role's name: lower-case letters, digits, '_' and '-', starting with a letter.",
                                 valueName: "name"))
    var name: String

    @OptionGroup var options: LabServerOption

    @Option(help: ArgumentHelp("A file holding the role's password on its one line (it never goes on a command line).",
                               valueName: "file"))
    var passwordFile: String

    /// Creates the role and prints the one line of its address.
    func add(as membership: LabAdministration.Membership) throws {
        try LabAdministration.check(name: name)
        let password = try readPassword()
        let address = try LabAdministration(address: options.server).addRole(name: name, password: password, as: membership)
        Console.output(address + "\n")
        Console.note("added \(membership == .station ? "station" : "analyst") \(name)")
    }

    private func readPassword() throws -> String {
        // FileHandle reads what `contents(atPath:)` gives up on: /dev/null, a pipe, a device (all read to their end).
        guard FileManager.default.fileExists(atPath: passwordFile) else {
            throw InputFailure(message: "cannot read the password file \(passwordFile): no such file.", missing: true)
        }
        guard let handle = FileHandle(forReadingAtPath: passwordFile), let data = try? handle.readToEnd() ?? Data() else {
            throw InputFailure(message: "cannot read the password file \(passwordFile): \(String(cString: strerror(errno))).", missing: true)
        }
        try? handle.close()
        var text = String(decoding: data, as: UTF8.self)
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        if text.isEmpty {
            throw InputFailure(message: "the password file \(passwordFile) is empty. Write the password on its one line.", missing: false)
        }
        if text.contains(where: \.isNewline) {
            throw InputFailure(message: "the password file \(passwordFile) holds more than one line. "
                               + "Write the password alone on its one line.", missing: false)
        }
        return text
    }
}
