import Foundation
import GazeModel
import JSONStream
import SessionStore
import StimulusAnalysis
import StimulusStudy

/// The stimulus files of the `--stimuli` folders by the SHA-256 of their bytes, so a presentation
/// (which names its file by hash) finds its file whatever its name there. Each file is hashed by
/// `StimulusFile.sha256(path:)` (the hash `gazerec stimulus` matches presentations with) once, and
/// again only when its size or modification time changed; files added while the server runs are
/// found on the next look.
final class StimulusHashes: @unchecked Sendable {
    private struct Known {
        var size: Int
        var modified: Date
        var sha256: String
    }

    private let lock = NSLock()
    private var known: [String: Known] = [:]
    /// The last look's answer (listing name by hash).
    private var lastNames: [String: String] = [:]

    /// Listing name (`ReviewFolders.stimulusNames`) by lowercase hexadecimal SHA-256; of two files
    /// with the same bytes, the first name in sorted order. Unreadable files are left out.
    func names(_ folders: ReviewFolders) -> [String: String] {
        lock.withLock {
            var byHash: [String: String] = [:]
            for name in folders.stimulusNames() {
                guard let path = try? folders.stimulus(named: name), let hash = hash(path), byHash[hash] == nil else { continue }
                byHash[hash] = name
            }
            lastNames = byHash
            return byHash
        }
    }

    /// The listing name of the file with SHA-256 `sha256`: the last look's, while that file is
    /// unchanged (a video's every range request asks), else a fresh look's.
    func name(sha256: String, _ folders: ReviewFolders) -> String? {
        let cached = lock.withLock { () -> String? in
            guard let name = lastNames[sha256], let path = try? folders.stimulus(named: name), hash(path) == sha256 else { return nil }
            return name
        }
        return cached ?? names(folders)[sha256]
    }

    private func hash(_ path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = attributes[.size] as? Int, let modified = attributes[.modificationDate] as? Date else { return nil }
        if let entry = known[path], entry.size == size, entry.modified == modified { return entry.sha256 }
        guard let sha256 = try? StimulusFile.sha256(path: path) else { return nil }
        known[path] = Known(size: size, modified: modified, sha256: sha256)
        return sha256
    }
}

/// A session's presentations as the page reads them (`ReviewCatalog.presentations(id:)`).
///
/// Times are seconds since the session's begin (the series' time base); positions in the stimulus
/// are its own seconds; rectangles are screen points `[left, top, width, height]`. `clock` is
/// `PresentationClock` itself: `segments` of `{start, stimulusSeconds, rate}` and `limit`, so the
/// page places a time in the stimulus by the library's one rule (the position at `t` is the last
/// segment starting at or before `t`: `stimulusSeconds + rate × (t − start)`, kept within
/// 0…`limit`; none before `onset` or from `offset` on).
enum PresentationJSON {
    static func presentation(_ p: Presentation, begin: Double, found: JSONValue) -> JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }
        func time(_ value: Double?) -> JSONValue { value.map { .number($0 - begin) } ?? .null }
        let rect: JSONValue = p.rect.map { .array([.number($0.x), .number($0.y), .number($0.width), .number($0.height)]) } ?? .null
        let ending: JSONValue = switch p.ending {
        case .finished?: .string("finished")
        case .cutShort(let reason)?: .string("cut short: " + reason)
        case nil: .null
        }
        return .object([
            ("index", .number(Double(p.index))), ("label", .string(p.label)), ("kind", .string(p.kind.rawValue)),
            ("fileName", p.fileName.map { .string($0) } ?? .null), ("sha256", p.sha256.map { .string($0) } ?? .null),
            ("byteSize", number(p.byteSize.map(Double.init))), ("durationSeconds", number(p.durationSeconds)),
            ("frameRate", number(p.frameRate)), ("widthPixels", number(p.widthPixels.map(Double.init))),
            ("heightPixels", number(p.heightPixels.map(Double.init))), ("rect", rect),
            ("onset", time(p.onsetSeconds)), ("offset", time(p.offsetSeconds)), ("ending", ending),
            ("events", .array(p.events.map { event in
                .object([("kind", .string(event.kind.rawValue)), ("t", time(event.timestampSeconds)),
                         ("stimulusSeconds", .number(event.stimulusSeconds)), ("fromStimulusSeconds", number(event.fromStimulusSeconds))])
            })),
            ("clock", clock(p.clock, begin: begin)), ("stimulus", found),
        ])
    }

    static func clock(_ clock: PresentationClock, begin: Double) -> JSONValue {
        .object([
            ("onset", .number(clock.onsetSeconds - begin)), ("offset", clock.offsetSeconds.map { .number($0 - begin) } ?? .null),
            ("limit", clock.limitSeconds.map { .number($0) } ?? .null),
            ("segments", .array(clock.segments.map { segment in
                .object([("start", .number(segment.startSeconds - begin)), ("stimulusSeconds", .number(segment.stimulusSeconds)),
                         ("rate", .number(segment.rate))])
            })),
        ])
    }

    /// A presented file found in the folders: the server's id for it (its SHA-256), its listing
    /// name and what `StimulusFile` measures of it; or, not found, `{"missing": sentence}`.
    static func found(_ sha256: String?, kind: Presentation.Kind, names: [String: String], folders: ReviewFolders) -> JSONValue {
        guard kind != .blank, let sha256 else { return .null }
        guard let name = names[sha256], let path = try? folders.stimulus(named: name) else {
            return .object([("missing", .string("no file in the stimulus folders has its SHA-256 \(sha256.prefix(12))…"))])
        }
        var members: [(String, JSONValue)] = [("id", .string(sha256)), ("name", .string(name))]
        if let file = try? StimulusFile.read(path: path) {
            members += [("width", .number(Double(file.widthPixels))), ("height", .number(Double(file.heightPixels))),
                        ("framesPerSecond", file.framesPerSecond.map { .number($0) } ?? .null),
                        ("durationSeconds", file.durationSeconds.map { .number($0) } ?? .null)]
        }
        return .object(members)
    }
}

extension ReviewCatalog {
    /// Session `id`'s presentations (what `gazerec start --present` showed), each with its clock
    /// and the file found for it in the stimulus folders (`PresentationJSON`); empty for a session
    /// recorded without.
    public func presentations(id: String) throws -> JSONValue {
        let canonical = try database.canonicalID(id)
        let begin = try database.summary(id: canonical).header.beginTimeSeconds
        let presentations = try database.presentations(id: canonical)
        let names = presentations.contains { $0.sha256 != nil } ? hashes.names(folders) : [:]
        return .array(presentations.map { p in
            PresentationJSON.presentation(p, begin: begin, found: PresentationJSON.found(p.sha256, kind: p.kind, names: names, folders: folders))
        })
    }

    /// Every file some session presented, by SHA-256 in order of first appearance: its names as
    /// shown, its kind, the sessions that presented it (ids, each once) and the file found for it
    /// in the stimulus folders (as in `presentations(id:)`).
    public func presentedStimuli() throws -> JSONValue {
        var order: [String] = [], files: [String: (names: [String], kind: Presentation.Kind, sessions: [String])] = [:]
        for id in try database.sessionIDs() {
            for p in try database.presentations(id: id) where p.kind != .blank {
                guard let sha256 = p.sha256 else { continue }
                if files[sha256] == nil { order.append(sha256); files[sha256] = ([], p.kind, []) }
                if let name = p.fileName, !files[sha256]!.names.contains(name) { files[sha256]!.names.append(name) }
                if !files[sha256]!.sessions.contains(id) { files[sha256]!.sessions.append(id) }
            }
        }
        let names = order.isEmpty ? [:] : hashes.names(folders)
        return .array(order.map { sha256 in
            let file = files[sha256]!
            return .object([("sha256", .string(sha256)), ("fileNames", .array(file.names.map { .string($0) })),
                            ("kind", .string(file.kind.rawValue)), ("sessions", .array(file.sessions.map { .string($0) })),
                            ("stimulus", PresentationJSON.found(sha256, kind: file.kind, names: names, folders: folders))])
        })
    }

    /// The path of the stimulus file whose SHA-256 is `sha256` (the id `presentations(id:)` gave
    /// it), or `notFound`: only files the server found in its folders are ever named this way.
    public func presentedStimulus(sha256: String) throws -> String {
        guard let name = hashes.name(sha256: sha256.lowercased(), folders) else {
            throw ReviewError.notFound("a stimulus file with SHA-256 \(sha256.prefix(12))… in the stimulus folders")
        }
        return try folders.stimulus(named: name)
    }

    /// The AOI table of `request` over the sessions' own presentations of the file with SHA-256
    /// `sha256`: `stimulus aoi IDS --stimulus FILE --aois AREAS` without a rectangle (every showing,
    /// each its own rows), the same library calls.
    func presentedAOIMetrics(_ request: AOIRequest, sha256: String) throws -> JSONValue {
        let file = try StimulusFile.read(path: try presentedStimulus(sha256: sha256))
        let areas = try AOIDocument.areas(request.areas, source: "the page's areas")
        var ids: [String] = []
        for id in try request.ids.map({ try database.canonicalID($0) }) where !ids.contains(id) { ids.append(id) }
        let study = try StimulusStudy(stimulus: file, presented: .all, database: database, ids: ids)
        let report = try study.areasOfInterest(database, ids: ids, areas: areas)
        let skipped: [JSONValue] = report.skipped.map { .string("\($0)") }
        return .object([("table", report.table.json), ("skipped", .array(skipped)),
                        ("warnings", .array(report.warnings.map { .string($0.description) }))])
    }
}
