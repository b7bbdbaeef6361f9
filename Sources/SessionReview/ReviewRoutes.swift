import Foundation
import HTTPTypes
import Hummingbird
import JSONStream

/// The page's addresses: its files, and the data it reads through `ReviewCatalog`.
struct ReviewRoutes: Sendable {
    let catalog: ReviewCatalog

    func add(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in try PageFiles.response("index.html") }
        router.get("/page/:name") { _, context in try PageFiles.response(try context.parameters.require("name")) }
        router.get("/api/sessions") { _, _ in try answer { ReviewResponse.json(try JSONDocument.text(try catalog.sessions(), pretty: false)) } }
        router.get("/api/sessions/:id/series") { _, context in
            let id = try context.parameters.require("id")
            return try answer { ReviewResponse.bytes(try catalog.series(id: id), type: "application/octet-stream") }
        }
        router.get("/api/sessions/:id/presentations") { _, context in
            let id = try context.parameters.require("id")
            return try answer { ReviewResponse.json(try JSONDocument.text(try catalog.presentations(id: id), pretty: false)) }
        }
        router.get("/api/presented") { _, _ in try answer { ReviewResponse.json(try JSONDocument.text(try catalog.presentedStimuli(), pretty: false)) } }
        router.get("/api/sessions/:id/figure") { request, context in try figure(request, id: try context.parameters.require("id")) }
        router.get("/api/stimuli") { _, _ in try answer { ReviewResponse.json(try JSONDocument.text(catalog.stimuli(), pretty: false)) } }
        router.get("/api/stimulus") { request, _ in
            try answer {
                // A presented file by the id the server gave it (its SHA-256), else a listing name.
                let query = request.uri.queryParameters
                let path = try query.get("presented").map { try catalog.presentedStimulus(sha256: $0) }
                    ?? catalog.folders.stimulus(named: query.get("name") ?? "")
                return try FileRange.response(path: path, range: request.headers[.range])
            }
        }
        router.post("/api/aoi/metrics") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 16 << 20)
            return try answer {
                ReviewResponse.json(try JSONDocument.text(try catalog.aoiMetrics(try AOIRequest(json: Array(body.readableBytesView))), pretty: false))
            }
        }
        router.post("/api/placement") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            return try answer {
                let asked = try PlacementRequest(json: Array(body.readableBytesView))
                let answer = try catalog.placement(ids: asked.ids, stimulus: asked.stimulus, rect: asked.rect, start: asked.start)
                return ReviewResponse.json(try JSONDocument.text(answer, pretty: false))
            }
        }
        addAOIFiles(to: router)
    }

    func addAOIFiles(to router: Router<BasicRequestContext>) {
        router.get("/api/aoi-files") { _, _ in
            try answer { ReviewResponse.json(try JSONDocument.text(.array(try catalog.folders.aoiNames().map { .string($0) }), pretty: false)) }
        }
        router.get("/api/aoi-files/:name") { _, context in
            let name = try Self.fileName(try context.parameters.require("name"))
            return try answer { ReviewResponse.bytes(try catalog.loadAOIs(named: name), type: "application/json; charset=utf-8") }
        }
        router.put("/api/aoi-files/:name") { request, context in
            let name = try Self.fileName(try context.parameters.require("name"))
            var request = request
            let body = try await request.collectBody(upTo: 16 << 20)
            return try answer {
                try catalog.saveAOIs(Array(body.readableBytesView), named: name)
                return ReviewResponse.json("{\"saved\":true}")
            }
        }
    }

    /// An AOI file name as the address carries it, percent-decoded once ("My%20Areas.json" is "My Areas.json").
    static func fileName(_ segment: String) throws -> String {
        guard let name = segment.removingPercentEncoding else { throw ReviewError.badAOIName(segment) }
        return name
    }

    /// `plot`'s figure: `format` svg or png, `layers` (heatmap, scanpath, fixations; none: all three),
    /// `between` one or two marker labels, comma-separated.
    func figure(_ request: Request, id: String) throws -> Response {
        try answer {
            let query = request.uri.queryParameters
            let png = query.get("format") == "png"
            let layers = Set((query.get("layers") ?? "").split(separator: ",").map(String.init))
            let between = (query.get("between") ?? "").split(separator: ",").map(String.init)
            let bytes = try catalog.figure(id: id, layers: layers, between: between, png: png)
            var response = ReviewResponse.bytes(bytes, type: png ? "image/png" : "image/svg+xml")
            response.headers[.contentDisposition] = "attachment; filename=\"\(id.prefix(8))-figure.\(png ? "png" : "svg")\""
            return response
        }
    }

    /// The response `body` makes, or its error's.
    func answer(_ body: () throws -> Response) throws -> Response {
        do {
            return try body()
        } catch {
            return ReviewResponse.failure(error)
        }
    }
}

/// The page's own files, bundled with the module (`Resources`); only the names found there are served.
enum PageFiles {
    static let types = ["html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
                        "svg": "image/svg+xml", "png": "image/png"]

    /// The bundled `Resources` folder (where Foundation on Linux and on macOS put a copied folder).
    static let folder: URL? = {
        let candidates = [Bundle.module.resourceURL?.appendingPathComponent("Resources"), Bundle.module.bundleURL.appendingPathComponent("Resources"),
                          Bundle.module.resourceURL]
        return candidates.compactMap { $0 }.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("index.html").path) }
    }()

    static func response(_ name: String) throws -> Response {
        guard let folder = folder,
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path), names.contains(name),
              let type = types[(name as NSString).pathExtension],
              let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else {
            return ReviewResponse.error(.notFound("page file \(name)"))
        }
        return ReviewResponse.bytes([UInt8](data), type: type)
    }
}

/// A file served whole or in the byte range asked (HTTP range requests: 206 with Content-Range), so
/// a video can be played from any point; an open range is served in parts of at most 8 MiB.
enum FileRange {
    static let largestPart = 8 << 20

    static func response(path: String, range: String?) throws -> Response {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ReviewError.outsideFolders(path: path) }
        defer { try? handle.close() }
        let size = Int(try handle.seekToEnd())
        let type = mediaType(path)
        guard let range else {
            try handle.seek(toOffset: 0)
            var response = ReviewResponse.bytes([UInt8](try handle.readToEnd() ?? Data()), type: type)
            response.headers[.acceptRanges] = "bytes"
            return response
        }
        guard let (start, end) = bounds(range, size: size) else {
            return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(size)"])
        }
        try handle.seek(toOffset: UInt64(start))
        let data = try handle.read(upToCount: end - start + 1) ?? Data()
        var response = ReviewResponse.bytes([UInt8](data), type: type, status: .partialContent)
        response.headers[.contentRange] = "bytes \(start)-\(start + data.count - 1)/\(size)"
        response.headers[.acceptRanges] = "bytes"
        return response
    }

    /// The first and last byte of `bytes=a-b`, `bytes=a-` or `bytes=-n` in a file of `size` bytes
    /// (nil when unsatisfiable or not one range).
    static func bounds(_ header: String, size: Int) -> (Int, Int)? {
        guard header.hasPrefix("bytes="), !header.contains(","), size > 0 else { return nil }
        let parts = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0 else { return nil }
            return (max(0, size - suffix), size - 1)
        }
        guard let start = Int(parts[0]), start >= 0, start < size else { return nil }
        let last = parts[1].isEmpty ? min(size - 1, start + largestPart - 1) : Int(parts[1]).map { min($0, size - 1) }
        guard let last, last >= start else { return nil }
        return (start, last)
    }

    static func mediaType(_ path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "mp4", "m4v": "video/mp4"
        case "webm": "video/webm"
        case "mkv": "video/x-matroska"
        case "mov": "video/quicktime"
        case "ogv": "video/ogg"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        default: "application/octet-stream"
        }
    }
}
