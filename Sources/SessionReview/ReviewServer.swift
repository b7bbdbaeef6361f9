import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// `gazerec view`'s server: the page and its data on 127.0.0.1 only, every request checked by
/// `ReviewGuard` (token, host, origin), files only from the folders `ReviewFolders` holds.
public struct ReviewServer: Sendable {
    public let catalog: ReviewCatalog
    /// The port asked for; nil or 0: a free one.
    public let port: Int?
    /// The token of this run (32 random bytes, hexadecimal): in the printed address, good for one
    /// request, which exchanges it for a cookie (`ReviewGuard`).
    public let token: String

    public init(catalog: ReviewCatalog, port: Int?) {
        self.catalog = catalog
        self.port = port
        token = TokenExchange.random()
    }

    /// Serves until SIGINT or SIGTERM; `ready` gets the page's address (with the token) once listening.
    public func run(ready: @escaping @Sendable (String) -> Void) async throws {
        var logger = Logger(label: "gazerec-view") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = .error
        let router = Router()
        router.add(middleware: ReviewGuard(token: token))
        ReviewRoutes(catalog: catalog).add(to: router)
        let token = self.token
        let listening = ListeningFlag()
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port ?? 0)),
            onServerRunning: { channel in
                listening.set()
                ready("http://127.0.0.1:\(channel.localAddress?.port ?? 0)/?token=\(token)")
            },
            logger: logger)
        do {
            try await app.runService()
        } catch where !listening.isSet {
            throw ReviewError.cannotListen(port: port ?? 0, reason: Self.reason(error))
        }
    }
}

extension ReviewServer {
    /// Why the socket could not be opened, in words (the system's error, not the call that met it).
    static func reason(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("Address already in use") { return "the port is in use by another program" }
        if text.contains("Permission denied") { return "this user may not listen on that port (ports below 1024 need privileges)" }
        if text.contains("Cannot assign requested address") { return "the loopback address is not available" }
        return text
    }
}

/// Whether the server got as far as listening (an error before that is the socket's).
final class ListeningFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
