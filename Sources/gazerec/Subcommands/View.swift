import ArgumentParser
import Dispatch
import Foundation
import SessionReview
import SessionStore

extension Gazerec {
    /// `gazerec view`: the review page, served on the loopback interface until Ctrl-C.
    struct View: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve a local page to replay sessions over their stimulus, compare participants and draw AOIs.",
            discussion: """
                Listens on 127.0.0.1 only and prints the page's address, with this run's token, on stdout; \
                runs until Ctrl-C. The page reads the store and never writes it; stimulus files are served \
                only from the --stimuli folders, AOI files read and written only in --aoi-folder. From \
                another machine, reach it through an SSH tunnel (ssh -L PORT:127.0.0.1:PORT host). See \
                docs/Review.md.
                """)

        @OptionGroup var store: ReadableStoreOptions

        @Option(name: .customLong("stimuli"),
                help: ArgumentHelp("A folder of stimulus files (videos, images) the page may show; repeatable.", valueName: "folder"))
        var stimuli: [String] = []

        @Option(parsing: .unconditional, help: ArgumentHelp("The port to listen on; 0: a free one (the default).", valueName: "n"))
        var port: Int?

        @Option(name: .customLong("aoi-folder"),
                help: ArgumentHelp("The folder AOI files are saved to and loaded from.", valueName: "folder"))
        var aoiFolder: String?

        func validate() throws {
            if let port, !(0...65535).contains(port) {
                throw ValidationError("--port \(port) is not a port: give 1 to 65535, or 0 (or none) for a free one.")
            }
        }

        func run() throws {
            let folders = try openFolders()
            let database = try openStore()
            let server = ReviewServer(catalog: ReviewCatalog(database: database, folders: folders), port: port)
            let outcome = ServerOutcome()
            let done = DispatchSemaphore(value: 0)
            let served = store.resolvedPath
            Task {
                do {
                    try await server.run { address in
                        Console.output(address + "\n")
                        Console.note("serving \(served) on 127.0.0.1 until Ctrl-C.")
                    }
                } catch {
                    outcome.error = error
                }
                done.signal()
            }
            done.wait()
            if case let .cannotListen(port, reason)? = outcome.error as? ReviewError {
                throw ViewFailure(description: "cannot listen on 127.0.0.1:\(port): \(reason); give another --port, or leave --port out for a free one")
            }
            if let error = outcome.error { throw error }
        }

        /// The folders, each refusal naming the option that gave it.
        func openFolders() throws -> ReviewFolders {
            do {
                return try ReviewFolders(stimuli: stimuli, aoi: aoiFolder)
            } catch let ReviewError.notAFolder(path, reason) {
                let option = path == aoiFolder ? "--aoi-folder" : "--stimuli"
                throw InputFailure(message: "\(option) \(path): \(reason); give an existing folder", missing: true)
            }
        }

        /// The store, refusing a folder given as the database file (SQLite would call it a disk I/O error).
        func openStore() throws -> SessionDatabase {
            var isFolder: ObjCBool = false
            let path = store.resolvedPath
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                throw InputFailure(message: "--database \(path) is a folder: give the session database file "
                                   + "('gazerec start' or 'gazerec import' creates it)", missing: true)
            }
            return try store.openForReading()
        }
    }
}

/// A failure of `view` itself, its sentence naming the option to change (exit status 1).
struct ViewFailure: RuntimeFailure {
    var description: String
}

/// The error the server ended with, handed from its task to the command's thread.
final class ServerOutcome: @unchecked Sendable {
    var error: (any Error)?
}

extension ReviewError: RuntimeFailure {}
