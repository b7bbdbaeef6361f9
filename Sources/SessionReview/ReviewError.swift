/// Why the review server refused a request or could not start. Each case is one line: what, where,
/// what to do; `status` is the HTTP status a request refused with it gets.
public enum ReviewError: Error, Equatable, CustomStringConvertible {
    /// A folder given to serve from is missing or is a file.
    case notAFolder(path: String, reason: String)
    /// The listening socket could not be opened.
    case cannotListen(port: Int, reason: String)
    /// A request without the token (neither the query's `token` nor the cookie).
    case missingToken
    /// The address's token was exchanged for the cookie already: it is good once.
    case tokenSpent
    /// A request whose `Host` is not this server's loopback address (DNS rebinding), or whose
    /// `Origin` is another site's.
    case foreignOrigin(String)
    /// A file path that resolves outside the folders the server was given (or is not there).
    case outsideFolders(path: String)
    /// A request the page should not have made: a bad parameter, a body that is no AOI document.
    case badRequest(String)
    /// AOI files cannot be saved or loaded: no folder for them was given.
    case noAOIFolder
    /// Nothing at that address.
    case notFound(String)
    /// An AOI file name that is not a plain file name ending in `.json` (a folder part, a leading
    /// dot or another extension).
    case badAOIName(String)

    public var description: String {
        switch self {
        case let .notAFolder(path, reason): "cannot serve from \(path): \(reason); give an existing folder"
        case let .cannotListen(port, reason): "cannot listen on 127.0.0.1:\(port): \(reason); choose another port, or none for a free one"
        case .missingToken: "this page needs the token of the address the server printed; open that address"
        case .tokenSpent:
            "the token of this address was used already and is good once: go on in the browser that opened it, or restart the server for a new address"
        case let .foreignOrigin(origin): "a request from \(origin) was refused: only the page on this loopback address may ask"
        case let .outsideFolders(path): "\(path) is not a file inside the folders the server was given"
        case let .badRequest(reason): "bad request: \(reason)"
        case .noAOIFolder: "no folder for AOI files was given: start the server with one to save and load them"
        case let .notFound(what): "\(what) not found"
        case let .badAOIName(name):
            "AOI file name \"\(name)\" refused: it must end in .json and be a plain file name (no folder part, not starting with a dot), such as areas.json"
        }
    }

    /// The HTTP status of a request refused with this error.
    public var status: Int {
        switch self {
        case .notAFolder, .cannotListen: 500
        case .missingToken, .tokenSpent: 401
        case .foreignOrigin, .outsideFolders: 403
        case .badRequest: 400
        case .noAOIFolder: 409
        case .notFound: 404
        case let .badAOIName(name): name.contains("/") || name.hasPrefix(".") ? 403 : 400
        }
    }
}
