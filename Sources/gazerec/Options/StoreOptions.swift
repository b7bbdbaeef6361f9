import ArgumentParser
import Foundation
import GazeModel
import JSONStream
import SessionStore

/// Where the session database lives: `--database`, `GAZEREC_DATABASE`, or the XDG data folder.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("database"),
            help: ArgumentHelp("The session database file.", valueName: "path"))
    var databasePath: String?

    /// The resolved path.
    var resolvedPath: String { Self.resolve(databasePath) }

    func validate() throws { try Self.checkNotEmpty(databasePath) }

    /// An empty `--database` or `GAZEREC_DATABASE` is a mistake (an unset variable in a script),
    /// not a request for the default file.
    static func checkNotEmpty(_ explicit: String?) throws {
        if let explicit, explicit.isEmpty {
            throw ValidationError("--database is empty: give the database file's path, or leave the option out for the default.")
        }
        if explicit == nil, let path = ProcessInfo.processInfo.environment["GAZEREC_DATABASE"], path.isEmpty {
            throw ValidationError("GAZEREC_DATABASE is set but empty: set it to the database file's path, or unset it "
                                  + "for the default.")
        }
    }

    static func resolve(_ explicit: String?) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
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

    /// Opens (creating if needed) the database.
    func open() throws -> SessionDatabase {
        if Self.isServer(resolvedPath) {
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

    /// The commands that read a lab server (`--database postgres://…`).
    static let serverReaders: Set<String> = ["list", "show", "export", "fixations", "stimulus", "plot", "replay", "calibrations list",
                                             "calibrations show", "calibrations export"]

    /// A one-line refusal when `arguments` point a command that writes at a lab server (nil otherwise).
    static func serverRefusal(_ arguments: [String]) -> String? {
        var database = ProcessInfo.processInfo.environment["GAZEREC_DATABASE"]
        var words: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--database", index + 1 < arguments.count {
                database = arguments[index + 1]
                index += 1
            } else if argument.hasPrefix("--database=") {
                database = String(argument.dropFirst("--database=".count))
            } else if !argument.hasPrefix("-"), words.count < 2, words.first != "push" {
                words.append(argument)
            }
            index += 1
        }
        guard let database, isServer(database), let command = words.first, command != "push", command != "help" else { return nil }
        let name = words.count == 2 && command == "calibrations" ? words.joined(separator: " ") : command
        guard !serverReaders.contains(name) else { return nil }
        return "\(database) is a lab server: '\(name)' works on a station's database file; the server "
            + "is read by list, show, export, fixations, stimulus, plot, replay and calibrations list/show/export, and sessions "
            + "reach it with 'gazerec push' from a station."
    }

    /// Whether the database is a lab's PostgreSQL server (a `postgres://` or `postgresql://` URI).
    static func isServer(_ path: String) -> Bool { path.hasPrefix("postgres://") || path.hasPrefix("postgresql://") }

    /// Opens an existing database for reading only: a missing file is an error naming the path
    /// (a mistyped path must not look like an empty store), and a file nobody may write is read.
    /// A lab server's sessions and calibrations are read into a scratch database as a station
    /// stores them, so every reading command gives the same bytes from the server as from the
    /// station: the sessions `sessions` names (ids or id prefixes), or all of them, or none.
    func openForReading(sessions: ServerSnapshot.Sessions = .all) throws -> SessionDatabase {
        let path = resolvedPath
        if Self.isServer(path) { return try ServerSnapshot.load(address: path, sessions: sessions) }
        return try SessionDatabase.openForReading(path: path)
    }
}
