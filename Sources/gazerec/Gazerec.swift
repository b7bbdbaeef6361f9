import ArgumentParser
import Foundation
import GazeCapture
import GazeModel
import GazeVision
import JSONStream
import Recorder
import SessionStore

/// `gazerec`: record, calibrate and manage webcam eye-tracking sessions.
struct Gazerec: ParsableCommand {
    static let version = GazerecVersion.current

    static let configuration = CommandConfiguration(
        commandName: "gazerec",
        abstract: "Record webcam eye-tracking sessions and move them around as EyeTracking JSON.",
        discussion: """
            Sessions are kept in one SQLite file (--database PATH, GAZEREC_DATABASE, or \
            $XDG_DATA_HOME/gazerec/gazerec.sqlite) and leave as JSON in the format of the iOS \
            EyeTracking package. --database may also be given before the subcommand.
            Exit codes: 0 success, 1 failure, 64 usage error (the command line itself), 65 an input \
            that is not what the command takes, 66 an input (file, folder, database, camera, id) that \
            is not there or cannot be read.
            """,
        version: version,
        subcommands: [Position.self, Calibrate.self, Validate.self, Start.self, Stop.self, Status.self, Mark.self, Push.self, Lab.self, Calibrations.self, Recalibrate.self, Reanalyze.self, Analyze.self, Devices.self, Fixations.self, Stimulus.self, Plot.self, Replay.self, View.self, List.self, Show.self, Export.self,
                      Import.self, Delete.self, Repair.self, Check.self, Backup.self]
    )
}

@main
enum Main {
    static func main() {
        // A file-size limit (`ulimit -f`) must fail the write that passes it (EFBIG: a one-line
        // error, the temporary files removed, exit 1), not kill the process with its files half-written.
        signal(SIGXFSZ, SIG_IGN)
        // ArgumentParser reads the options before the subcommand (`gazerec --database PATH delete
        // --database`) on their own; the subcommand's words go to `Gazerec` as they are.
        let arguments: [String]
        do {
            let leading = try LeadingOptions.parse(Array(CommandLine.arguments.dropFirst()))
            arguments = leading.command
        } catch {
            exit(with: error, arguments: [])
        }
        var command: ParsableCommand
        do {
            command = try Gazerec.parseAsRoot(arguments)
        } catch {
            // A mistyped name is the mistake to name, whatever ArgumentParser met first.
            if let typo = ArgumentCheck.typo(in: arguments, root: Gazerec.self, rootOptions: LeadingOptions.self) {
                Console.error(typo)
                Foundation.exit(ExitCode.validationFailure.rawValue)
            }
            exit(with: error, arguments: arguments)
        }
        do {
            try command.run()
        } catch let error as UsageError {
            usageExit(error.message, arguments: arguments)
        } catch let error as any RuntimeFailure {
            // One rule for every command: ExitStatus chooses the status from what failed.
            let status = ExitStatus.of(error)
            if status == .usage { usageExit(ErrorHints.message(for: error), arguments: arguments) }
            Console.error(ErrorHints.message(for: error))
            Foundation.exit(status.rawValue)
        } catch {
            // Help, version, validation errors and exit codes.
            exit(with: error, arguments: arguments)
        }
    }

    /// A usage error (exit 64): one line ending by naming the command's help, as README promises.
    static func usageExit(_ message: String, arguments: [String]) -> Never {
        Console.error(ArgumentCheck.usageLine(message, arguments: arguments, root: Gazerec.self))
        Foundation.exit(ExitStatus.usage.rawValue)
    }

    /// ArgumentParser's errors as every other error of gazerec: help and version on stdout as it
    /// prints them, an error as one line on stderr (a usage error, exit 64, naming its command's help
    /// instead of ArgumentParser's three lines of "Error:", usage and "See …").
    static func exit(with error: any Error, arguments: [String]) -> Never {
        let code = Gazerec.exitCode(for: error)
        let message = Gazerec.message(for: error).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
        guard code != .success, !message.isEmpty else {
            // The root's help names the `--database` read before the subcommand.
            if code == .success, let help = RootHelp.text(Gazerec.message(for: error)) {
                Console.output(help.trimmingCharacters(in: .newlines) + "\n")
                Foundation.exit(0)
            }
            Gazerec.exit(withError: error)
        }
        if code == .validationFailure { usageExit(message, arguments: arguments) }
        Console.error(message)
        Foundation.exit(code.rawValue)
    }
}

/// Errors printed as `gazerec: error: <sentence>`, with the exit status `ExitStatus.of` gives them.
protocol RuntimeFailure: Error, CustomStringConvertible {}

extension StoreError: RuntimeFailure {}
extension JSONError: RuntimeFailure {}
extension CaptureError: RuntimeFailure {}
extension VisionError: RuntimeFailure {}
extension RecorderError: RuntimeFailure {}
