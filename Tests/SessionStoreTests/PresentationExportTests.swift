import Foundation
import GazeModel
import JSONStream
import Testing
import TestSupport
@testable import SessionStore

/// Presentations in the exports: `"gazerec"."presentations"` of the EyeTracking JSON (camelCase and
/// snake_case documents alike), imported back to identical presentations, and the CSV's
/// `stimulus` and `stimulusSeconds` columns.
@Suite("Presentations exported and imported")
struct PresentationExportTests {
    static let fixtureID = "3BE54760-F1E8-4799-A3CB-78806270E72A"

    /// The real iOS export with the study's presentations added under `"gazerec"`, the schedule
    /// shifted 7 s earlier so that its second showing (7.5…16 s) falls on the recording's 10 s of samples.
    static func iosWithPresentations() throws -> (bytes: [UInt8], presentations: [Presentation]) {
        let original = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.iosSession))))
        guard case .object(var members) = original, case .number(let begin)? = original["beginTime"] else {
            throw JSONError.invalid(source: "fixture", path: "", line: 0, column: 0, reason: "not a session")
        }
        let presentations = StudyPresentations.presentations(begin: begin - 7)
        members.append(("gazerec", .object([("presentations", SessionExtensionCodec.presentationsValue(presentations))])))
        return (Array(JSONValue.object(members).compactText.utf8), presentations)
    }

    func export(_ database: SessionDatabase, _ options: ExportOptions = ExportOptions()) throws -> [UInt8] {
        let sink = MemoryByteSink()
        try database.export(ids: [Self.fixtureID], asArray: false, to: sink, options: options)
        return sink.bytes
    }

    @Test("imported and exported again, in camelCase and in snake_case, the presentations are identical",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func roundTrip() throws {
        let (bytes, presentations) = try Self.iosWithPresentations()
        let database = try SessionDatabase()
        try database.importSessions(from: [.bytes(bytes, name: "ios+presentations.json")])
        #expect(try database.presentations(id: Self.fixtureID) == presentations)
        #expect(try database.damage(id: Self.fixtureID) == nil)
        let exported = try export(database)
        let member = try #require(try JSONValue.parse(exported)["gazerec"]?["presentations"]?.arrayValue)
        #expect(member.count == 3)
        #expect(member[2]["ending"] == .string("cutShort") && member[2]["rect"]?["y"] == .number(40))
        #expect(member[2]["events"]?.arrayValue?[2]["fromStimulusSeconds"] == .number(3))
        #expect(member[1]["fileName"] == nil && member[1]["kind"] == .string("blank"))
        for (options, style) in [(ExportOptions(), KeyStyle.camelCase), (ExportOptions(keyStyle: .snakeCase), .snakeCase)] {
            let document = try export(database, options)
            let fresh = try SessionDatabase()
            try fresh.importSessions(from: [.bytes(document, name: "again.json")], keyStyle: style == .snakeCase ? .snakeCase : .detect)
            #expect(try fresh.presentations(id: Self.fixtureID) == presentations, "\(style)")
            #expect(try export(fresh, options) == document, "\(style)")
        }
    }

    @Test("a presentation out of order, of an unknown kind or with events out of time order is refused, naming where",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func refused() throws {
        let text = String(decoding: try Self.iosWithPresentations().bytes, as: UTF8.self)
        for (from, to, what) in [(#"{"index":1,"#, #"{"index":4,"#, "expected 1, found 4"),
                                 (#""kind":"blank""#, #""kind":"sound""#, "unknown kind 'sound'"),
                                 (#""kind":"resume","timestamp":"#, #""kind":"resume","timestamp":1,"x":"#, "earlier than the one before it")] {
            #expect(text.contains(from), "\(from)")
            let fresh = try SessionDatabase()
            do {
                try fresh.importSessions(from: [.bytes(Array(text.replacingOccurrences(of: from, with: to).utf8), name: "x.json")])
                Issue.record("imported: \(to)")
            } catch {
                #expect("\(error)".contains(what) && "\(error)".contains("gazerec.presentations["), "\(error)")
            }
            #expect(try fresh.summaries().isEmpty)
        }
    }

    @Test("the CSV's stimulus and stimulusSeconds follow the schedule row by row, empty between items",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func csv() throws {
        let (bytes, _) = try Self.iosWithPresentations()
        let database = try SessionDatabase()
        try database.importSessions(from: [.bytes(bytes, name: "ios+presentations.json")])
        let sink = MemoryByteSink()
        try database.exportCSV(id: Self.fixtureID, to: sink)
        let lines = sink.text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(Array(lines[0].suffix(2)) == ["stimulus", "stimulusSeconds"])
        let time = try #require(lines[0].firstIndex(of: "timestampSeconds"))
        guard case .number(let recorded)? = try JSONValue.parse(bytes)["beginTime"] else { Issue.record("no beginTime"); return }
        let begin = recorded - 7
        var shown = 0
        for row in lines.dropFirst() {
            let relative = Double(row[time])! - begin
            let index = (0..<3).first { StudyPresentations.position($0, at: relative) != nil }
            let label = index.map { $0 == 1 ? "blank" : "clip" } ?? ""
            #expect(row[row.count - 2] == label, "at \(relative)")
            if let index, let expected = StudyPresentations.position(index, at: relative) {
                #expect(abs(Double(row[row.count - 1])! - expected) < 2e-6, "at \(relative): \(row[row.count - 1]) vs \(expected)")
                shown += 1
            } else {
                #expect(row[row.count - 1] == "", "at \(relative)")
            }
        }
        #expect(shown > 200)
        // A session without presentations keeps the columns it had.
        let plain = try SessionDatabase()
        try plain.importSessions(from: [.file(Fixtures.iosSession)])
        let plainSink = MemoryByteSink()
        try plain.exportCSV(id: Self.fixtureID, to: plainSink)
        #expect(!plainSink.text.prefix(while: { $0 != "\n" }).contains("stimulus"))
    }
}
