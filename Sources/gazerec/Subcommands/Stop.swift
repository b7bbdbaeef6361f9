import ArgumentParser
import Foundation
import GazeModel
import JSONStream
import Recorder
import SessionStore

extension Gazerec {
    /// `gazerec stop`: tells the running recorder to finish and waits for its session to close.
    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop the running recording and print its session id once the session is closed.")

        @OptionGroup var store: StoreOptions

        @Option(parsing: .unconditional, help: ArgumentHelp("How long to wait for the session to close.", valueName: "seconds"))
        var timeout: Double = 15

        func validate() throws {
            if !(timeout > 0) { throw ValidationError("--timeout must be a positive number of seconds.") }
        }

        func run() throws {
            let path = store.resolvedPath
            guard let recorder = RecorderLock.running(databasePath: path) else {
                throw RecorderError.notRecording(databasePath: path)
            }
            if kill(recorder.pid, SIGTERM) != 0 && errno != ESRCH {
                throw RecorderError.lockFailed(path: RecorderLock.lockPath(databasePath: path),
                                               reason: "cannot signal process \(recorder.pid): \(String(cString: strerror(errno)))")
            }
            let database = try SessionDatabase(path: path)
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if (try? database.summary(id: recorder.sessionID))?.header.endTimeSeconds != nil,
                   RecorderLock.running(databasePath: path) == nil {
                    Console.output(recorder.sessionID + "\n")
                    return
                }
                usleep(50_000)
            }
            throw RecorderError.stopTimedOut(sessionID: recorder.sessionID, pid: recorder.pid, seconds: timeout)
        }
    }
}
