import CLibPQ
import Foundation

/// One connection to a PostgreSQL server through libpq.
///
/// The address is a libpq connection URI or string (`postgres://USER@HOST:PORT/DB?sslmode=…`):
/// the password comes from `PGPASSFILE`, `~/.pgpass` or `PGPASSWORD`, never from the address
/// (one given there is refused), and TLS is used when the server offers it (libpq's
/// `sslmode=prefer`). Parameters travel separately from the SQL text (no quoting of values).
/// THREAD SAFETY: one thread at a time.
public final class PostgresConnection {
    private let handle: OpaquePointer
    /// The address without any secret, for messages.
    public let address: String

    public init(address: String) throws {
        self.address = address
        if Self.hasPassword(address) { throw LabServerError.passwordInAddress }
        if let reason = Self.parseFailure(address) { throw LabServerError.malformedAddress(address: address, reason: reason) }
        guard let connection = PQconnectdb(address) else {
            throw LabServerError.cannotConnect(server: Self.endpoint(of: address), reason: "out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = Self.connectionFailure(PQerrorMessage(connection).map { String(cString: $0) } ?? "")
            PQfinish(connection)
            throw LabServerError.cannotConnect(server: Self.endpoint(of: address), reason: reason)
        }
        handle = connection
        // The server's notices (a shutdown's WARNING) are not gazerec's messages: errors say what matters.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// Whether a URI carries a password (`postgres://user:secret@host`) or a key/value string a `password=`.
    /// A URI that URLComponents cannot read (a bad percent-escape) is looked at as text: a `:` in the
    /// user part before its `@`, or a `password=` parameter.
    static func hasPassword(_ address: String) -> Bool {
        if let url = URLComponents(string: address), url.scheme == "postgres" || url.scheme == "postgresql" {
            return url.password != nil || (url.queryItems ?? []).contains { $0.name == "password" }
        }
        if let scheme = address.range(of: "://"), address.hasPrefix("postgres") {
            let rest = address[scheme.upperBound...]
            let authority = rest.prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@"), authority[..<at].contains(":") { return true }
            return rest.split(whereSeparator: { $0 == "?" || $0 == "&" }).contains { $0.lowercased().hasPrefix("password=") }
        }
        return address.split(separator: " ").contains { $0.lowercased().hasPrefix("password=") }
    }

    /// libpq's reason it cannot read the address (a bad percent-escape, an unknown parameter), as one
    /// clause, or nil when it can. Checked before connecting: libpq's connection error for such an
    /// address names no server, and a message would fall back to its defaults (localhost:5432).
    static func parseFailure(_ address: String) -> String? {
        var error: UnsafeMutablePointer<CChar>?
        if let options = PQconninfoParse(address, &error) {
            PQconninfoFree(options)
            return nil
        }
        defer { if let error { PQfreemem(error) } }
        return error.map { message(UnsafePointer($0)) } ?? "libpq cannot read it"
    }

    /// SQLSTATEs of a server shutting down or a broken connection (classes 57P and 08), and none
    /// at all (an error libpq made itself, such as "server closed the connection unexpectedly":
    /// every error the server sends has one): the connection is as good as lost, whatever
    /// libpq's status says yet.
    static func meansServerGone(_ state: String) -> Bool { state.isEmpty || state.hasPrefix("57P") || state.hasPrefix("08") }

    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "\n", with: " ")
    }

    /// `HOST:PORT` of an address, as libpq reads it (its defaults where the address names none), for
    /// messages about a server that could not be reached.
    static func endpoint(of address: String) -> String {
        var host = ProcessInfo.processInfo.environment["PGHOST"] ?? "localhost"
        var port = ProcessInfo.processInfo.environment["PGPORT"] ?? "5432"
        if let options = PQconninfoParse(address, nil) {
            defer { PQconninfoFree(options) }
            var option = options
            while let keyword = option.pointee.keyword {
                if let value = option.pointee.val, value.pointee != 0 {
                    switch String(cString: keyword) {
                    case "host", "hostaddr": host = String(cString: value)
                    case "port": port = String(cString: value)
                    default: break
                    }
                }
                option += 1
            }
        }
        return "\(host):\(port)"
    }

    /// libpq's connection failure as one clause of ours: the reason of its last attempt ("connection
    /// refused", "password authentication failed for user …"), without its "connection to server at
    /// …" prefix, its severity or its hint lines.
    static func connectionFailure(_ text: String) -> String {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        let attempts = lines.filter { !$0.isEmpty && !$0.hasPrefix("Is the server running") && !$0.hasPrefix("HINT:") }
        var reason = attempts.last ?? "unknown error"
        if let range = reason.range(of: " failed: ") { reason = String(reason[range.upperBound...]) }
        for severity in ["FATAL:", "ERROR:"] where reason.hasPrefix(severity) {
            reason = reason.dropFirst(severity.count).trimmingCharacters(in: .whitespaces)
        }
        if let first = reason.first, first.isUppercase, reason.dropFirst().first?.isLowercase == true {
            reason = first.lowercased() + reason.dropFirst()
        }
        if text.contains("Is the server running") { reason += "; is the server running and accepting TCP/IP connections?" }
        return reason
    }

    /// The server's host, port and database as the connection uses them.
    public var endpoint: (host: String, port: String, database: String) {
        (PQhost(handle).map { String(cString: $0) } ?? "", PQport(handle).map { String(cString: $0) } ?? "",
         PQdb(handle).map { String(cString: $0) } ?? "")
    }

    /// A password as the verifier the server stores (SCRAM-SHA-256), computed here so the password
    /// itself never travels or lands in the server's log.
    public func passwordVerifier(_ password: String, role: String) throws -> String {
        guard let verifier = PQencryptPasswordConn(handle, password, role, "scram-sha-256") else {
            throw LabServerError.server(address: address, reason: Self.message(PQerrorMessage(handle)))
        }
        defer { PQfreemem(verifier) }
        return String(cString: verifier)
    }

    /// Whether the connection uses TLS.
    public var usesTLS: Bool { PQsslInUse(handle) == 1 }

    /// The role the connection is logged in as.
    public var user: String { String(cString: PQuser(handle)) }

    /// A result's rows as text (NULL as nil).
    public struct Rows {
        public var columns: [String]
        public var values: [[String?]]
    }

    /// Runs one statement with text parameters ($1, $2, …; nil is NULL) and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ parameters: [String?] = []) throws -> Rows {
        let result = try run(sql, parameters, binary: [])
        defer { PQclear(result) }
        return rows(result)
    }

    /// Runs one statement whose parameters may be binary (`Data`, e.g. for `bytea`) or text.
    @discardableResult
    public func query(_ sql: String, values: [Value]) throws -> Rows {
        let result = try run(sql, values.map(\.text), binary: values.map(\.data))
        defer { PQclear(result) }
        return rows(result)
    }

    /// A parameter: text, binary or NULL.
    public enum Value {
        case text(String)
        case binary(Data)
        case null

        var text: String? { if case .text(let t) = self { t } else { nil } }
        var data: Data? { if case .binary(let d) = self { d } else { nil } }
    }

    /// The first column of a query's rows as raw bytes (for `bytea` selected in binary form).
    public func binaryColumn(_ sql: String, _ parameters: [String?]) throws -> [Data] {
        let result = try run(sql, parameters, binary: [], binaryResult: true)
        defer { PQclear(result) }
        return (0..<PQntuples(result)).map { row in
            guard PQgetisnull(result, row, 0) == 0, let bytes = PQgetvalue(result, row, 0) else { return Data() }
            return Data(bytes: bytes, count: Int(PQgetlength(result, row, 0)))
        }
    }

    private func run(_ sql: String, _ texts: [String?], binary: [Data?], binaryResult: Bool = false) throws -> OpaquePointer {
        let count = max(texts.count, binary.count)
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for index in 0..<count {
            if index < binary.count, let data = binary[index] {
                let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(data.count, 1))
                data.withUnsafeBytes { raw in
                    if let base = raw.baseAddress { buffer.update(from: base.assumingMemoryBound(to: CChar.self), count: data.count) }
                }
                buffers.append(buffer)
                lengths.append(Int32(data.count))
                formats.append(1)
            } else if index < texts.count, let text = texts[index] {
                buffers.append(strdup(text))
                lengths.append(0)
                formats.append(0)
            } else {
                buffers.append(nil)
                lengths.append(0)
                formats.append(0)
            }
        }
        defer { buffers.forEach { $0.map { free($0) } } }
        let result = buffers.withUnsafeBufferPointer { values in
            values.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(count, 1)) { pointers in
                PQexecParams(handle, sql, Int32(count), nil, count == 0 ? nil : pointers, lengths, formats, binaryResult ? 1 : 0)
            }
        }
        guard let result else {
            let reason = Self.message(PQerrorMessage(handle))
            if PQstatus(handle) != CONNECTION_OK { throw LabServerError.connectionLost(address: address, reason: reason) }
            throw LabServerError.server(address: address, reason: reason)
        }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_COPY_IN else {
            // The primary message alone ("permission denied for table session"), without LINE/caret lines.
            let reason = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
                ?? Self.message(PQresultErrorMessage(result))
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            PQclear(result)
            if PQstatus(handle) != CONNECTION_OK || Self.meansServerGone(state) {
                throw LabServerError.connectionLost(address: address, reason: reason)
            }
            throw LabServerError.statement(state: state, reason: reason)
        }
        return result
    }

    private func rows(_ result: OpaquePointer) -> Rows {
        let columns = (0..<PQnfields(result)).map { String(cString: PQfname(result, $0)) }
        let values = (0..<PQntuples(result)).map { row in
            (0..<PQnfields(result)).map { column -> String? in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            }
        }
        return Rows(columns: columns, values: values)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try query("BEGIN")
        do {
            let value = try body()
            try query("COMMIT")
            return value
        } catch {
            _ = try? query("ROLLBACK")
            throw error
        }
    }

    /// Runs a `COPY … FROM STDIN` statement; `body` sends its data through the function it is given
    /// (any split of the stream: the pieces need not be whole rows). A throw from `body` aborts the COPY.
    public func copyIn(_ sql: String, _ body: (@escaping (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let result = try run(sql, [], binary: [])
        PQclear(result)
        do {
            try body { [self] bytes in
                guard bytes.count > 0 else { return }
                let status = PQputCopyData(handle, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
                guard status == 1 else {
                    throw LabServerError.connectionLost(address: address, reason: Self.message(PQerrorMessage(handle)))
                }
            }
        } catch {
            _ = PQputCopyEnd(handle, "aborted by gazerec")
            while let pending = PQgetResult(handle) { PQclear(pending) }
            throw error
        }
        guard PQputCopyEnd(handle, nil) == 1 else {
            throw LabServerError.connectionLost(address: address, reason: Self.message(PQerrorMessage(handle)))
        }
        var failure: LabServerError?
        while let pending = PQgetResult(handle) {
            if PQresultStatus(pending) != PGRES_COMMAND_OK {
                let state = PQresultErrorField(pending, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
                let reason = Self.message(PQresultErrorMessage(pending))
                failure = PQstatus(handle) != CONNECTION_OK || Self.meansServerGone(state)
                    ? .connectionLost(address: address, reason: reason) : .statement(state: state, reason: reason)
            }
            PQclear(pending)
        }
        if let failure { throw failure }
    }
}

/// What can go wrong with a lab server, each a sentence a user can act on.
public enum LabServerError: Error, CustomStringConvertible, Equatable {
    case passwordInAddress
    /// An address libpq cannot read (a bad percent-escape, an unknown parameter); it holds no password.
    case malformedAddress(address: String, reason: String)
    case cannotConnect(server: String, reason: String)
    case connectionLost(address: String, reason: String)
    case server(address: String, reason: String)
    case statement(state: String, reason: String)
    case conflict(sessionID: String)
    case notPermitted(reason: String)
    case newerSchema(version: Int, known: Int)
    /// The database has no gazerec schema: the lab's admin has not set it up.
    case noSchema(address: String)
    /// The database's schema is older than this gazerec's: the lab's admin migrates it.
    case olderSchema(version: Int, known: Int)
    /// A station or analyst name that cannot be a role of ours.
    case badRoleName(name: String, reason: String)
    /// A station or analyst name some role of the server already has.
    case roleTaken(name: String)
    /// The role setting up a lab or adding roles is not an administrator of the server.
    case notAdministrator(role: String, reason: String)
    /// The session's id is on the server, pushed by another role whose sessions this one cannot read.
    case pushedByAnotherRole(sessionID: String)
    /// A session or calibration (`kind`) whose participant withdrew: the server's sentence naming the withdrawal.
    case withdrawn(kind: String, id: String, reason: String)
    /// An id to erase that the server neither has nor has withdrawn.
    case unknownToErase(id: String, address: String)
    /// No session on the server has this app id.
    case noSessionsWithAppID(label: String, address: String)

    public var description: String {
        switch self {
        case .passwordInAddress:
            return "the server address holds a password; passwords come from PGPASSFILE, ~/.pgpass or PGPASSWORD, "
                + "never from a command line (where other users can read it). Remove it from the address."
        case let .malformedAddress(address, reason):
            return "the lab server address \(address) is malformed: \(reason). Write it as "
                + "postgres://ROLE@HOST:PORT/DATABASE, with any '%' in it followed by two hexadecimal digits"
        case let .cannotConnect(server, reason):
            var text = "cannot reach the lab server at \(server): \(reason)"
            if reason.contains("password") { text += ". The role's password comes from PGPASSFILE, ~/.pgpass or PGPASSWORD" }
            return text
        case let .connectionLost(address, reason):
            return "the connection to \(address) was lost: \(reason). Nothing half-written stays on the server; "
                + "push again when it is back."
        case let .server(address, reason):
            return "server \(address): \(reason)"
        case let .statement(_, reason):
            return "the server refused: \(reason)"
        case let .conflict(id):
            return "session \(id) is already on the server with other content. Push it with the replacement allowed "
                + "(by a role that may delete) to overwrite it, or leave it out."
        case let .notPermitted(reason):
            return "not permitted: \(reason). A station adds its own sessions and changes nothing already pushed; "
                + "only an analyst role may replace or delete."
        case let .newerSchema(version, known):
            return "the server's gazerec schema is version \(version), newer than this gazerec knows (\(known)). Update gazerec."
        case let .noSchema(address):
            return "\(address) has no gazerec schema yet: the lab's admin creates it, with its roles, "
                + "connecting as an administrator of the server."
        case let .olderSchema(version, known):
            return "the server's gazerec schema is version \(version), older than this gazerec's (\(known)): the lab's admin "
                + "migrates it, connecting as an administrator of the server."
        case let .badRoleName(name, reason):
            return "'\(name)' cannot name a station or analyst: \(reason). Use lower-case letters, digits, '_' and '-', "
                + "starting with a letter, at most 63 characters."
        case let .roleTaken(name):
            return "the server already has a role named '\(name)'. Choose another name (each station and analyst has its own role)."
        case let .notAdministrator(role, reason):
            return "\(role) may not set up a lab (\(reason)): connect as an administrator of the server, such as postgres."
        case let .pushedByAnotherRole(id):
            return "session \(id) is already on the server, pushed by another role, whose sessions this role may neither "
                + "read nor replace. Leave it out, or ask an analyst to look at it."
        case let .withdrawn(_, _, reason):
            return reason + "."
        case let .unknownToErase(id, address):
            return "\(address) has no session or calibration \(id) (give a whole id, or a prefix of at least 4 characters "
                + "that names one); nothing was erased."
        case let .noSessionsWithAppID(label, address):
            return "\(address) has no session with the app id '\(label)'; nothing was erased."
        }
    }
}
