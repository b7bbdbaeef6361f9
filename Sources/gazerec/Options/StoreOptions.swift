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
        try SessionDatabase(path: resolvedPath)
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
    func openForReading() throws -> SessionDatabase {
        try SessionDatabase.openForReading(path: resolvedPath)
    }
}
