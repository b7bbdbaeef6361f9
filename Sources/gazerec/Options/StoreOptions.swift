import ArgumentParser
import Foundation
import GazeModel
import JSONStream
import LabServer
import SessionStore

/// `--database` given before the subcommand (`gazerec --database PATH delete --all`), the form
/// scripts use and the root help names.
///
/// ArgumentParser lets a root command's options appear anywhere on the line, so a root `--database`
/// option would also take `delete --database` (a flag there) and refuse it for a missing path. This
/// type is parsed by ArgumentParser on its own first: it reads the options before the first word and
/// passes every word from the subcommand on, unread, to `Gazerec` (`captureForPassthrough`).
struct LeadingOptions: ParsableArguments {
    /// The option's help and value name, also in the root help (`RootHelp`).
    static let databaseHelp = "The session database file."
    static let databaseValueName = "path"

    @Option(name: .customLong("database"), help: ArgumentHelp(databaseHelp, valueName: databaseValueName))
    var databasePath: String?

    @Argument(parsing: .captureForPassthrough)
    var command: [String] = []

    /// The leading `--database` of this process's command line (nil when absent, or when the line
    /// does not parse: `main()` reports that). Read from the arguments, never set: no global state
    /// carries options.
    static let databasePath: String? = (try? parse(Array(CommandLine.arguments.dropFirst())))?.databasePath
}

/// The `--database` option, resolved: the option after the subcommand, the one before it,
/// `GAZEREC_DATABASE`, or the XDG data folder. Two option types carry it: `StoreOptions` for the
/// commands that work on a station's database file, `ReadableStoreOptions` for those that also
/// read a lab server (`postgres://…`). Each one's `validate()` decides what it accepts.
protocol DatabaseLocation {
    var databasePath: String? { get }
}

/// A station's database file: a lab server is refused before the command runs.
struct StoreOptions: ParsableArguments, DatabaseLocation {
    @Option(name: .customLong("database"),
            help: ArgumentHelp("The session database file.", valueName: "path"))
    var databasePath: String?

    func validate() throws {
        try Self.checkNotEmpty(databasePath)
        try Self.refuseServer(resolvedPath)
    }

    /// A lab server named where a station's database file is needed, as a usage error.
    static func refuseServer(_ path: String) throws {
        guard isServer(path) else { return }
        throw ValidationError("\(path) is a lab server: this command works on a station's database file; the server "
            + "is read by list, show, export, fixations, stimulus, plot, replay and calibrations list/show/export, and sessions "
            + "reach it with 'gazerec push' from a station.")
    }

    /// `delete` pointed at a lab server, as a usage error that says how sessions leave a server.
    static func refuseServerDeletion(_ path: String) throws {
        guard isServer(path) else { return }
        throw ValidationError("\(path) is a lab server: 'delete' works on a station's database file. Sessions leave the "
            + "server through its admin: 'gazerec lab erase ID... --server ADMIN_URL' (or --app-id LABEL for all of a "
            + "participant's) erases them and refuses any later push of them.")
    }

    /// An empty `--database` or `GAZEREC_DATABASE` is a mistake (an unset variable in a script),
    /// not a request for the default file.
    static func checkNotEmpty(_ explicit: String?) throws {
        if let explicit = explicit ?? LeadingOptions.databasePath, explicit.isEmpty {
            throw ValidationError("--database is empty: give the database file's path, or leave the option out for the default.")
        }
        if explicit == nil, LeadingOptions.databasePath == nil,
           let path = ProcessInfo.processInfo.environment["GAZEREC_DATABASE"], path.isEmpty {
            throw ValidationError("GAZEREC_DATABASE is set but empty: set it to the database file's path, or unset it "
                                  + "for the default.")
        }
    }

    static func resolve(_ explicit: String?) -> String {
        if let explicit = explicit ?? LeadingOptions.databasePath, !explicit.isEmpty { return explicit }
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["GAZEREC_DATABASE"], !path.isEmpty { return path }
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else {
            dataHome = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        }
        return dataHome + "/gazerec/gazerec.sqlite"
    }

    /// Whether the database is a lab's PostgreSQL server (a `postgres://` or `postgresql://` URI).
    static func isServer(_ path: String) -> Bool { path.hasPrefix("postgres://") || path.hasPrefix("postgresql://") }
}

/// A station's database file or a lab server to read (list, show, export, fixations, stimulus, plot, replay,
/// calibrations list/show/export), and push, which names its server as an argument and was never
/// refused one here.
struct ReadableStoreOptions: ParsableArguments, DatabaseLocation {
    @Option(name: .customLong("database"),
            help: ArgumentHelp("The session database file.", valueName: "path"))
    var databasePath: String?

    func validate() throws { try StoreOptions.checkNotEmpty(databasePath) }
}

extension DatabaseLocation {
    /// The resolved path.
    var resolvedPath: String { StoreOptions.resolve(databasePath) }

    /// Opens (creating if needed) the database.
    func open() throws -> SessionDatabase {
        if StoreOptions.isServer(resolvedPath) {
            throw UsageError(message: "--database \(resolvedPath) is a lab server: it is read by list, show, export, "
                             + "fixations, stimulus, plot and replay; sessions reach it with 'gazerec push' from a station.")
        }
        return try SessionDatabase(path: resolvedPath)
    }

    /// Opens the database for writing only if the file exists (nil otherwise).
    func openExisting() throws -> SessionDatabase? {
        FileManager.default.fileExists(atPath: resolvedPath) ? try open() : nil
    }

    /// Whether the database file and its folder may be written by this process.
    var isWritable: Bool {
        let path = resolvedPath
        let folder = (path as NSString).deletingLastPathComponent
        return access(path, W_OK) == 0 && access(folder.isEmpty ? "." : folder, W_OK) == 0
    }

    /// Opens an existing database for reading only: a missing file is an error naming the path
    /// (a mistyped path must not look like an empty store), and a file nobody may write is read.
    /// A lab server's sessions and calibrations are read into a scratch database as a station
    /// stores them, so every reading command gives the same bytes from the server as from the
    /// station: the sessions `sessions` names (ids or id prefixes), or all of them, or none.
    func openForReading(sessions: LabSnapshot.Sessions = .all) throws -> SessionDatabase {
        let path = resolvedPath
        if StoreOptions.isServer(path) { return try LabSnapshot.load(address: path, sessions: sessions) }
        return try SessionDatabase.openForReading(path: path)
    }
}
