import ArgumentParser
import Foundation
import GazeCapture
import GazeModel
import JSONStream
import Recorder
import SessionStore

extension Gazerec {
    /// `gazerec mark`: an event marker into the running recording.
    struct Mark: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put an event marker (a stimulus, a trial, a question) into the running recording.",
            discussion: """
                From any shell or experiment script while 'gazerec start' records: the marker is stored \
                with the session at the current time (or --at) in one short transaction beside the \
                recorder's, and leaves with it under "gazerec"."markers". A marker's interval runs until \
                the next marker; the CSV labels every sample with it, and fixations, plot and replay \
                take --between LABEL1 LABEL2. Prints the marker's time (Unix seconds) on stdout.
                """)

        @OptionGroup var store: StoreOptions

        @Argument(help: "The marker's label, e.g. 'stimulus-A'.")
        var label: String

        @Option(parsing: .unconditional, help: ArgumentHelp("When it happened, in Unix seconds (default: now): from the session's begin until now.",
                                   valueName: "seconds"))
        var at: Double?

        @Option(help: ArgumentHelp("Data kept with the marker: any JSON value of at most 64 KiB, e.g. '{\"trial\": 3}'.", valueName: "json"))
        var data: String?

        func validate() throws {
            if label.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("The label must not be empty.") }
            try LabelArgument.check(label, as: "The label")
            if let at, !(at.isFinite && at > 0) { throw ValidationError("--at takes Unix seconds, a positive number.") }
            if let data {
                let compact: String
                do {
                    compact = try JSONValue.parse(Array(data.utf8), name: "--data").compactText
                } catch {
                    throw ValidationError("--data is not JSON: \(error). Give a JSON value, e.g. '{\"trial\": 3}' or '\"A\"'.")
                }
                if let problem = MarkerDataRule.problem(compact) { throw ValidationError("--data \(problem).") }
            }
        }

        func run() throws {
            let path = store.resolvedPath
            guard let recording = RecorderLock.running(databasePath: path),
                  recording.sessionID != RecorderInfo.unknownSession else {
                throw NoRecording(databasePath: path)
            }
            if let at, let refusal = RecordingSpan(beginSeconds: recording.startedAt).refusal(of: at, sessionID: recording.sessionID) {
                throw UsageError(message: "--at: \(refusal)")
            }
            let compact = try data.map { try JSONValue.parse(Array($0.utf8), name: "--data").compactText }
            let marker = Marker(timestampSeconds: at ?? SystemClock.unixTime(), label: label, dataJSON: compact)
            try store.open().addMarker(marker, sessionID: recording.sessionID)
            Console.output(String(marker.timestampSeconds) + "\n")
            Console.note("marked '\(label)' in session \(recording.sessionID)")
        }
    }
}

/// A marker with no recording to belong to.
struct NoRecording: RuntimeFailure {
    var databasePath: String
    var description: String {
        "no recording is running for \(databasePath): a marker belongs to a recording. Start one with 'gazerec start', "
            + "then mark it."
    }
}
