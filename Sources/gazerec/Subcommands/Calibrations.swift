import ArgumentParser
import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import GazeModel
import JSONStream
import Recorder
import SessionExport
import SessionStore

extension Gazerec {
    /// `gazerec calibrations list|show|delete|export|import`.
    struct Calibrations: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, show, delete, export and import stored calibrations.",
            subcommands: [List.self, Show.self, Delete.self, Export.self, Import.self])

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List stored calibrations, oldest first.")

            @OptionGroup var store: ReadableStoreOptions

            @Flag(help: "Print only the ids, one per line.")
            var ids = false

            func run() throws {
                let calibrations = try store.openForReading(sessions: .none).calibrations()
                if ids {
                    Console.output(calibrations.map { $0.id + "\n" }.joined())
                    return
                }
                guard !calibrations.isEmpty else {
                    Console.note("no calibrations in \(store.resolvedPath); make one with 'gazerec calibrate'")
                    return
                }
                var rows = [["id", "created", "name", "screen", "points", "accuracy pt", "accuracy °"]]
                for calibration in calibrations {
                    rows.append([calibration.id, Formatting.isoTime(calibration.createdAtSeconds), calibration.name ?? "-",
                                 "\(Int(calibration.screenWidth))x\(Int(calibration.screenHeight))", "\(calibration.pointCount)",
                                 calibration.accuracyPoints.map { Formatting.fixed($0, 1) } ?? "-",
                                 calibration.accuracyDegrees.map { Formatting.fixed($0, 2) } ?? "-"])
                }
                Console.output(Formatting.table(rows))
            }
        }

        struct Show: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Show a calibration's targets and accuracy report ('latest' for the newest).")

            @OptionGroup var store: ReadableStoreOptions

            @Argument(help: "The calibration id (or an unambiguous prefix of it), or 'latest'.")
            var id: String

            @Flag(help: "Print its JSON document instead.")
            var json = false

            func run() throws {
                let record = try openRecord(store, id)
                Console.output(json ? try record.document(pretty: true) + "\n" : CalibrationReport.text(record))
            }
        }

        struct Delete: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Delete calibrations (all or none). Sessions recorded with them keep their scan paths.")

            @OptionGroup var store: StoreOptions

            @Argument(help: "Calibration ids (or unambiguous prefixes).")
            var ids: [String]

            func validate() throws {
                if ids.isEmpty { throw ValidationError("Name at least one calibration id ('gazerec calibrations list --ids').") }
            }

            func run() throws {
                guard let database = try store.openExisting() else {
                    throw StoreError.unknownCalibration(id: ids[0], databasePath: store.resolvedPath)
                }
                try database.deleteCalibrations(ids: ids)
                Console.note("deleted \(ids.count) calibration\(ids.count == 1 ? "" : "s")")
            }
        }

        struct Export: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Write calibrations as JSON: one object for one id, an array for several or --all.")

            @OptionGroup var store: ReadableStoreOptions

            @Argument(help: "Calibration ids or unambiguous prefixes ('latest' for the newest).")
            var ids: [String] = []

            @Flag(help: "Export every stored calibration (as an array).")
            var all = false

            @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file (atomically) instead of stdout.", valueName: "file"))
            var output: String?

            @Flag(help: "Indent the JSON.")
            var pretty = false

            func validate() throws {
                if ids.isEmpty && !all { throw ValidationError("Name calibration ids, or use --all.") }
                if !ids.isEmpty && all { throw ValidationError("Use either ids or --all, not both.") }
            }

            func run() throws {
                TemporaryFileCleanup.install()
                let database = try store.openForReading(sessions: .none)
                let names = all ? try database.calibrations().map(\.id) : ids
                let records = Self.once(try names.map { try database.calibrationRecord(id: $0) })
                try write(records.count == 1 && !all ? try records[0].jsonValue : .array(try records.map { try $0.jsonValue }))
            }

            /// Each calibration once, in the order first named (an id given twice, or with a prefix of
            /// it, would write the calibration twice, and such an export could not be imported).
            static func once(_ records: [CalibrationRecord]) -> [CalibrationRecord] {
                var seen: Set<String> = []
                let unique = records.filter { seen.insert($0.id).inserted }
                let repeated = records.count - unique.count
                if repeated > 0 {
                    Console.note("\(repeated) id\(repeated == 1 ? "" : "s") named a calibration already given; "
                                 + "each calibration is exported once")
                }
                return unique
            }

            private func write(_ value: JSONValue) throws {
                func emit(_ sink: ByteSink) throws { try JSONDocument.write(value, to: sink, pretty: pretty) }
                if let output {
                    try OutputFile.writeAtomically(to: output) { try emit($0) }
                } else {
                    try emit(FileByteSink.standardOutput())
                }
            }
        }

        struct Import: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Read calibrations from JSON files (an object or an array each; '-' reads stdin), all or none.")

            @OptionGroup var store: StoreOptions

            @Argument(help: "JSON files written by 'gazerec calibrations export'.")
            var files: [String]

            @Flag(help: "Overwrite calibrations that are already stored.")
            var replace = false

            func validate() throws {
                if files.isEmpty { throw ValidationError("Name at least one file to import ('-' for stdin).") }
            }

            func run() throws {
                var records: [CalibrationRecord] = []
                var seen: [String: String] = [:]
                for file in files {
                    let bytes: [UInt8]
                    if file == "-" {
                        bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
                    } else {
                        guard let data = FileManager.default.contents(atPath: file) else {
                            throw StoreError.io(action: "read", path: file, reason: "no such file or not readable")
                        }
                        bytes = Array(data)
                    }
                    let name = file == "-" ? "<stdin>" : file
                    let root: JSONValue
                    do {
                        root = try JSONValue.parse(bytes, name: name)
                    } catch {
                        throw CalibrationDocumentError(source: name, path: "", reason: "not valid JSON (\(error))")
                    }
                    let elements = root.arrayValue ?? [root]
                    if elements.isEmpty {
                        throw CalibrationDocumentError(source: name, path: "",
                                                       reason: JSONError.emptyArrayReason(item: "calibration") + "; nothing was imported")
                    }
                    for (index, element) in elements.enumerated() {
                        let record = try CalibrationRecord(value: element, source: root.arrayValue == nil ? name : "\(name) [\(index)]")
                        if let first = seen[record.id] {
                            // As a session twice in one import: the files given hold what cannot be imported (65).
                            throw InputFailure(message: "calibration \(record.id) occurs twice (\(first) and \(name)); import one copy.",
                                               missing: false)
                        }
                        seen[record.id] = name
                        records.append(record)
                    }
                }
                let database = try store.open()
                try database.saveCalibrations(records, replace: replace,
                                              source: files.count == 1 ? files[0] : "\(files.count) files")
                Console.output(records.map { $0.id + "\n" }.joined())
                Console.note("imported \(records.count) calibration\(records.count == 1 ? "" : "s")")
            }
        }

        static func openRecord(_ store: some DatabaseLocation, _ id: String) throws -> CalibrationRecord {
            try store.openForReading(sessions: .none).calibrationRecord(id: id)
        }
    }
}

extension CalibrationError: RuntimeFailure {}

extension RecalibrationError: RuntimeFailure {}

extension CalibrationDocumentError: RuntimeFailure {}
extension CalibrationScript.ParseError: RuntimeFailure {}
