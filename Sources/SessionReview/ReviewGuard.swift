import Foundation
import HTTPTypes
import Hummingbird

/// The checks every request passes before a handler sees it, and the headers every response carries.
///
/// - The `Host` must name the loopback address (`127.0.0.1` or `localhost`, any port, so an SSH
///   tunnel's local port works): a page of another site whose name was made to resolve to 127.0.0.1
///   (DNS rebinding) sends its own name and is refused (403).
/// - An `Origin`, when sent, must be this very `http://Host`: another site's script is refused (403).
/// - The token: the `token` query parameter exactly once (the address printed). That request is
///   answered with a redirect (303) to the same address without the token, setting an `HttpOnly`,
///   `SameSite=Strict` cookie (named by the port, `cookieName`) that holds another secret, made
///   then: the token leaves the address bar and the history, and a copy of the address is worth
///   nothing. A second request with the token is refused (401) even from the browser that holds
///   the cookie; the cookie keeps working. A request with neither a fresh token nor the cookie is
///   refused (401); a browser asking for a page gets that sentence as a page, a script as JSON.
/// - Every response: a Content-Security-Policy allowing nothing but this origin (no outside script,
///   style, font, image, media or connection), `nosniff`, no referrer, no framing, not cached.
struct ReviewGuard<Context: RequestContext>: RouterMiddleware {
    let exchange: TokenExchange
    /// The cookie's name: `gazerec_view_PORT`, the port of the address the browser asked (the
    /// server's own, or an SSH tunnel's). A browser keeps cookies by host, not port, so two servers
    /// on 127.0.0.1 in one browser would otherwise overwrite each other's cookie.
    static func cookieName(_ request: Request) -> String {
        let authority = request.head.authority ?? ""
        let port = authority.hasPrefix("[") ? authority.split(separator: "]").last.map { String($0.dropFirst()) } ?? ""
            : String(authority.split(separator: ":", maxSplits: 1).dropFirst().first ?? "")
        return port.allSatisfy(\.isNumber) && !port.isEmpty ? "gazerec_view_" + port : "gazerec_view"
    }
    static var policy: String {
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; "
            + "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }

    init(token: String) {
        exchange = TokenExchange(token: token)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            try Self.checkOrigin(request)
            if let offered = request.uri.queryParameters.get("token") {
                let cookie = try exchange.claim(offered)
                let location = TokenExchange.withoutToken(path: request.uri.path, query: request.uri.query)
                response = Response(status: .seeOther, headers: [.location: location, .contentLength: "0"])
                response.headers[.setCookie] = "\(Self.cookieName(request))=\(cookie); Path=/; HttpOnly; SameSite=Strict"
            } else {
                guard let cookie = Self.cookie(request), exchange.admits(cookie) else { throw ReviewError.missingToken }
                response = try await next(request, context)
            }
        } catch let error as ReviewError {
            // A person's browser opening the page gets a sentence to read, a script its JSON.
            let page = request.method == .get && (request.headers[.accept] ?? "").contains("text/html")
            response = page ? ReviewResponse.page(error) : ReviewResponse.error(error)
        }
        response.headers[.contentSecurityPolicy] = Self.policy
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// The host part of a `Host` value (`[::1]:80` → `::1`).
    static func hostName(_ authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "")
    }

    static func checkOrigin(_ request: Request) throws {
        let authority = request.head.authority ?? ""
        guard ["127.0.0.1", "localhost"].contains(hostName(authority).lowercased()) else {
            throw ReviewError.foreignOrigin("host \(authority.isEmpty ? "(none)" : authority)")
        }
        if let origin = request.headers[.origin], origin.lowercased() != "http://" + authority.lowercased() {
            throw ReviewError.foreignOrigin(origin)
        }
        // A browser's fetch from another site names it in Sec-Fetch-Site even without an Origin.
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site == "cross-site" {
            throw ReviewError.foreignOrigin("another site")
        }
    }

    static func cookie(_ request: Request) -> String? {
        for field in request.headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == cookieName(request) { return String(parts[1]) }
            }
        }
        return nil
    }
}

/// The one-time exchange of the printed token for the cookie's secret: the first request with the
/// right token claims it; every later one with it is refused. Thread-safe (requests run concurrently).
final class TokenExchange: @unchecked Sendable {
    private let token: [UInt8]
    private let secret: [UInt8]
    private let lock = NSLock()
    private var spent = false

    init(token: String) {
        self.token = Array(token.utf8)
        secret = Array(Self.random().utf8)
    }

    /// 32 random bytes (the system's generator) in hexadecimal.
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The cookie's secret for the token `offered`, once: `missingToken` when it is not the token,
    /// `tokenSpent` when it was claimed before.
    func claim(_ offered: String) throws -> String {
        guard Self.same(Array(offered.utf8), token) else { throw ReviewError.missingToken }
        let first = lock.withLock { () -> Bool in
            defer { spent = true }
            return !spent
        }
        guard first else { throw ReviewError.tokenSpent }
        return String(decoding: secret, as: UTF8.self)
    }

    /// The request's path and query without its `token` parameters: where the exchange redirects
    /// (always a path on this server: one starting `//`, or `/\` which browsers read alike, would
    /// name another host, so it becomes `/`).
    static func withoutToken(path: String, query: String?) -> String {
        let path = path.hasPrefix("/") && !path.hasPrefix("//") && !path.hasPrefix("/\\") ? path : "/"
        let kept = (query ?? "").split(separator: "&").filter { !$0.hasPrefix("token=") && $0 != "token" }
        return kept.isEmpty ? path : path + "?" + kept.joined(separator: "&")
    }

    /// Whether `cookie` holds the secret handed out by the claim (none before it).
    func admits(_ cookie: String) -> Bool {
        lock.withLock { spent } && Self.same(Array(cookie.utf8), secret)
    }

    /// Equal bytes, compared in a time that does not depend on where they differ.
    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}

/// Responses of the review server.
enum ReviewResponse {
    static func bytes(_ bytes: [UInt8], type: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: type, .contentLength: "\(bytes.count)"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        bytes(Array(text.utf8), type: "application/json; charset=utf-8", status: status)
    }

    /// A refusal: its status and `{"error": sentence}`.
    static func error(_ error: ReviewError) -> Response {
        json(errorJSON(String(describing: error)), status: HTTPResponse.Status(code: error.status))
    }

    /// A refusal as a page a person reads (the sentence, escaped), with the refusal's status.
    static func page(_ error: ReviewError) -> Response {
        let sentence = String(describing: error).replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        let html = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Session review</title></head>"
            + "<body><h1>Session review</h1><p>\(sentence)</p></body></html>"
        return bytes(Array(html.utf8), type: "text/html; charset=utf-8", status: HTTPResponse.Status(code: error.status))
    }

    /// A library's refusal of what the page asked (a session not there, a stimulus FFmpeg cannot read).
    static func failure(_ error: any Error) -> Response {
        if let error = error as? ReviewError { return self.error(error) }
        return json(errorJSON(String(describing: error)), status: .unprocessableContent)
    }

    static func errorJSON(_ message: String) -> String {
        var escaped = ""
        for scalar in message.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20: escaped += String(format: "\\u%04x", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "{\"error\":\"\(escaped)\"}"
    }
}
