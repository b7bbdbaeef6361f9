import Foundation
import GazeAnalysis
import GazeFigures
import GazeModel
import JSONStream
import SessionFigures
import SessionStore
import StimulusAnalysis
import StimulusStudy

/// What the page asks of the store and the analyses, each answered through the library entry points
/// the commands use (nothing here reads a table or computes a figure of its own): the sessions as
/// `list`/`show` read them, the series as `SeriesEncoding`, a stimulus measured as `stimulus` measures
/// it, AOI metrics by `StimulusStudy.areasOfInterest` (`stimulus aoi`), figures by `SessionPlot` (`plot`).
public struct ReviewCatalog: Sendable {
    public let database: SessionDatabase
    public let folders: ReviewFolders
    /// The stimulus files by content hash, for the sessions' presentations (PresentedStimuli.swift).
    let hashes = StimulusHashes()

    public init(database: SessionDatabase, folders: ReviewFolders) {
        self.database = database
        self.folders = folders
    }

    /// The sessions table: per session its id, app id, begin (Unix s), duration (s), frames, gaze
    /// samples, face and on-screen shares (0…1, as `show` reports them), the calibration's validation
    /// accuracy (points and degrees), the screen (points) and its damage (nil when whole).
    public func sessions() throws -> JSONValue {
        .array(try database.summaries().map { summary in
            let id = summary.header.id
            let damage = try database.damage(id: id)
            let attention = damage == nil ? try database.attention(id: id)?.session : nil
            let calibration = summary.header.gazerecExtension?.calibration
            func number(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }
            return .object([
                ("id", .string(id)), ("appID", .string(summary.header.appID)),
                ("beginTime", .number(summary.header.beginTimeSeconds)), ("durationSeconds", number(summary.durationSeconds)),
                ("frames", .number(Double(try database.frameCount(id: id).count))),
                ("gazeSamples", .number(Double(summary.gazeSampleCount))),
                ("faceShare", number(attention?.faceShare)), ("onScreenShare", number(attention?.onScreenShare)),
                ("accuracyPoints", number(calibration?.accuracyPoints)), ("accuracyDegrees", number(calibration?.accuracyDegrees)),
                ("screen", .array([.number(summary.header.deviceInfo.screenWidth), .number(summary.header.deviceInfo.screenHeight)])),
                ("interrupted", .bool(summary.interrupted)), ("damage", damage.map { .string($0) } ?? .null),
            ])
        })
    }

    /// Session `id`'s series (`SeriesEncoding`), read column by column (`sessionColumns`); a
    /// damaged session is refused as `show` refuses it (that read checks it whole).
    public func series(id: String) throws -> [UInt8] {
        try SeriesEncoding.document(try database.sessionColumns(id: try database.canonicalID(id)))
    }

    /// The stimulus files of the folders, each with its size, frame rate and duration as the stimulus
    /// commands measure them (null when FFmpeg cannot read it).
    public func stimuli() -> JSONValue {
        .array(folders.stimulusNames().map { name in
            var members: [(String, JSONValue)] = [("name", .string(name))]
            if let path = try? folders.stimulus(named: name), let file = try? StimulusFile.read(path: path) {
                members += [("width", .number(Double(file.widthPixels))), ("height", .number(Double(file.heightPixels))),
                            ("framesPerSecond", file.framesPerSecond.map { .number($0) } ?? .null),
                            ("durationSeconds", file.durationSeconds.map { .number($0) } ?? .null)]
            }
            return .object(members)
        })
    }

    /// The AOI metrics table of `request` (`stimulus aoi`'s JSON, with the sessions left out and why).
    /// A request naming a presented file (`presented`) is answered over the sessions' own
    /// presentations of it, as `stimulus aoi` without a rectangle (`presentedAOIMetrics`).
    public func aoiMetrics(_ request: AOIRequest) throws -> JSONValue {
        if let sha256 = request.presented { return try presentedAOIMetrics(request, sha256: sha256) }
        let path = try folders.stimulus(named: request.stimulus)
        let areas = try AOIDocument.areas(request.areas, source: "the page's areas")
        let file = try StimulusFile.read(path: path)
        let study = try StimulusStudy(stimulus: file, screenX: request.rect[0], screenY: request.rect[1],
                                      screenWidth: request.rect[2], screenHeight: request.rect[3],
                                      startLabel: request.startLabel, endLabel: request.endLabel)
        let ids = try request.ids.map { try database.canonicalID($0) }
        let report = try study.areasOfInterest(database, ids: ids, areas: areas)
        return .object([("table", report.table.json), ("skipped", .array(report.skipped.map { .string("\($0)") })),
                        ("warnings", .array(report.warnings.map { .string($0.description) }))])
    }

    /// Where the page is to show stimulus `name` over sessions `ids`: the rectangle typed (`x,y,w,h`
    /// in screen points) and the start marker, checked by the library as `stimulus aoi --rect --start`
    /// checks them (the rectangle's numbers, area and aspect by `StimulusPlacement`; each session's
    /// marker and interval by `StimulusStudy.viewings`); the first refusal is thrown, its sentence
    /// the command's. Answers `{"rect": [x, y, w, h]}`.
    public func placement(ids: [String], stimulus name: String, rect text: String, start: String?) throws -> JSONValue {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let width = parts[2], let height = parts[3],
              [x, y, width, height].allSatisfy(\.isFinite) else {
            throw StimulusError.badRectangle(reason: "\"\(text)\" is not four numbers x,y,w,h (left, top, width and height in screen points)")
        }
        let file = try StimulusFile.read(path: try folders.stimulus(named: name))
        let study = try StimulusStudy(stimulus: file, screenX: x, screenY: y, screenWidth: width, screenHeight: height,
                                      startLabel: start?.isEmpty == false ? start : nil)
        var canonical: [String] = []
        for id in try ids.map({ try database.canonicalID($0) }) where !canonical.contains(id) { canonical.append(id) }
        if let refusal = try study.placementRefusal(database, ids: canonical) { throw refusal }
        return .object([("rect", .array([x, y, width, height].map { .number($0) }))])
    }

    /// The figure `plot` draws of session `id` (or its marker interval `between`): SVG, or PNG when `png`.
    public func figure(id: String, layers: Set<String>, between: [String], png: Bool) throws -> [UInt8] {
        let plot = SessionPlot(heatmap: layers.contains("heatmap"), scanPath: layers.contains("scanpath"),
                               fixations: layers.contains("fixations"))
        let figure = try plot.figure(database, id: try database.canonicalID(id), between: between)
        return png ? [UInt8](try SVGRasterizer.png(figure.svg)) : Array(figure.svg.utf8)
    }

    /// AOI file `name` of the AOI folder, checked to be a document `stimulus aoi` reads.
    public func loadAOIs(named name: String) throws -> [UInt8] {
        let path = try folders.aoiFile(named: name)
        guard let data = FileManager.default.contents(atPath: path) else { throw ReviewError.notFound("AOI file \(name)") }
        _ = try AOIDocument.areas([UInt8](data), source: name)
        return [UInt8](data)
    }

    /// Writes `bytes` as AOI file `name` (whole or not at all) once `stimulus aoi` would read it.
    public func saveAOIs(_ bytes: [UInt8], named name: String) throws {
        let path = try folders.aoiFile(named: name)
        _ = try AOIDocument.areas(bytes, source: name)
        try AtomicFile.write(bytes, to: path)
    }
}

/// The page's request for AOI metrics: sessions, the stimulus (its listing name), where it was shown
/// (screen points: left, top, width, height), the markers it started and ended at, and the AOI
/// document's bytes; or, instead of the stimulus and where it was shown, the SHA-256 of a file the
/// sessions presented (`presented`).
public struct AOIRequest: Sendable {
    public var ids: [String]
    public var stimulus: String
    /// The SHA-256 of a presented file (the id `ReviewCatalog.presentations(id:)` gives it); nil: `stimulus` and `rect`.
    public var presented: String?
    public var rect: [Double]
    public var startLabel: String?
    public var endLabel: String?
    public var areas: [UInt8]

    /// Reads `{"ids": [...], "stimulus": name, "rect": [x, y, w, h], "start": label?, "end": label?, "aois": [...]}`,
    /// or `{"ids": [...], "presented": sha256, "aois": [...]}`.
    public init(json bytes: [UInt8]) throws {
        guard case let .object(members) = try JSONValue.parse(bytes, name: "the AOI request") else {
            throw ReviewError.badRequest("the AOI request is not a JSON object")
        }
        func member(_ key: String) -> JSONValue? { members.first { $0.0 == key }?.1 }
        guard case let .array(idValues)? = member("ids"), let areas = member("aois") else {
            throw ReviewError.badRequest("the AOI request needs ids, stimulus, rect and aois")
        }
        ids = idValues.compactMap { if case let .string(id) = $0 { id } else { nil } }
        self.areas = Array(try JSONDocument.text(areas, pretty: false).utf8)
        guard !ids.isEmpty else { throw ReviewError.badRequest("the AOI request needs one or more session ids") }
        if case let .string(sha256)? = member("presented") {
            (presented, stimulus, rect) = (sha256, "", [])
            return
        }
        guard case let .string(stimulus)? = member("stimulus"), case let .array(rectValues)? = member("rect") else {
            throw ReviewError.badRequest("the AOI request needs ids, stimulus, rect and aois")
        }
        rect = rectValues.compactMap { if case let .number(n) = $0 { n } else { nil } }
        guard rect.count == 4, rect[2] > 0, rect[3] > 0 else {
            throw ReviewError.badRequest("the AOI request needs a rect of positive size")
        }
        self.stimulus = stimulus
        if case let .string(label)? = member("start"), !label.isEmpty { startLabel = label }
        if case let .string(label)? = member("end"), !label.isEmpty { endLabel = label }
    }
}

/// The page's question before showing a stimulus: `{"ids": [...], "stimulus": name, "rect": "x,y,w,h", "start": label?}`,
/// the rectangle as typed (`ReviewCatalog.placement` reads it).
public struct PlacementRequest: Sendable {
    public var ids: [String]
    public var stimulus: String
    public var rect: String
    public var start: String?

    public init(json bytes: [UInt8]) throws {
        guard case let .object(members) = try JSONValue.parse(bytes, name: "the placement request") else {
            throw ReviewError.badRequest("the placement request is not a JSON object")
        }
        func string(_ key: String) -> String? {
            if case let .string(value)? = members.first(where: { $0.0 == key })?.1 { value } else { nil }
        }
        guard case let .array(idValues)? = members.first(where: { $0.0 == "ids" })?.1, let stimulus = string("stimulus"),
              let rect = string("rect") else {
            throw ReviewError.badRequest("the placement request needs ids, stimulus and rect")
        }
        ids = idValues.compactMap { if case let .string(id) = $0 { id } else { nil } }
        self.stimulus = stimulus
        self.rect = rect
        start = string("start")
    }
}
