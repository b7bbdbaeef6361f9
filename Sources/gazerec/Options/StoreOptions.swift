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

    /// Opens the database only if the file exists (read-only commands never create one).
    func openExisting() throws -> SessionDatabase? {
        FileManager.default.fileExists(atPath: resolvedPath) ? try open() : nil
    }
}
