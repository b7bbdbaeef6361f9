import Foundation

/// A lab server as its admin sees it: the schema set up or migrated, and one login role per
/// station and per analyst.
///
/// WHAT THIS OBJECT REPRESENTS
///   A connection as an administrator of the server (a superuser: it creates roles and gives the
///   tables to `gazerec_owner`). Station and analyst roles are PostgreSQL login roles, members of
///   `gazerec_stations` or `gazerec_analysts`; their passwords reach the server only as SCRAM
///   verifiers. Roles belong to the whole server (every database of it), like all PostgreSQL roles.
public final class LabAdministration {
    /// The group a new login role joins.
    public enum Membership: Sendable {
        /// Pushes its own sessions; reads only those.
        case station
        /// Reads every session; may replace and delete.
        case analyst

        var group: String { self == .station ? LabSchema.stationsRole : LabSchema.analystsRole }
    }

    public let connection: PostgresConnection

    public init(address: String) throws {
        connection = try PostgresConnection(address: address)
    }

    /// Creates or migrates the schema with its roles and rules (idempotent); returns the version
    /// found before and the version now.
    public func setUp() throws -> (before: Int, now: Int) {
        let before = try administering { try LabSchema.setUp(connection) }
        return (before, LabSchema.version)
    }

    /// Creates a login role for a station or an analyst and returns the address it connects with
    /// (`postgres://ROLE@HOST:PORT/DB`, its password kept apart as libpq reads it).
    public func addRole(name: String, password: String, as membership: Membership) throws -> String {
        try Self.check(name: name)
        try LabSchema.requireCurrent(connection)
        if try !connection.query("SELECT FROM pg_roles WHERE rolname = $1::text", [name]).values.isEmpty {
            throw LabServerError.roleTaken(name: name)
        }
        let verifier = try connection.passwordVerifier(password, role: name)
        let statement = try connection.query("SELECT format('CREATE ROLE %I LOGIN PASSWORD %L IN ROLE %I', $1::text, $2::text, $3::text)",
                                             [name, verifier, membership.group]).values.first?.first ?? nil
        do {
            try administering { try connection.query(statement ?? "") }
        } catch LabServerError.statement(let state, _) where state == "42710" {
            throw LabServerError.roleTaken(name: name)
        }
        return address(of: name)
    }

    /// The station roles, by name.
    public func stations() throws -> [String] {
        try LabSchema.requireCurrent(connection)
        return try connection.query("""
            SELECT member.rolname FROM pg_auth_members m
                JOIN pg_roles member ON member.oid = m.member JOIN pg_roles groups ON groups.oid = m.roleid
            WHERE groups.rolname = $1 ORDER BY member.rolname COLLATE "C"
            """, [LabSchema.stationsRole]).values.compactMap { $0.first ?? nil }
    }

    /// Refuses a name that cannot be one of our roles: lower-case letters, digits, `_` and `-`,
    /// starting with a letter, at most 63 bytes (PostgreSQL's limit), not PostgreSQL's `pg_` prefix.
    public static func check(name: String) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_-")
        if name.isEmpty { throw LabServerError.badRoleName(name: name, reason: "it is empty") }
        if name.utf8.count > 63 { throw LabServerError.badRoleName(name: name, reason: "it is longer than 63 characters") }
        if let first = name.first, !("a"..."z").contains(first) {
            throw LabServerError.badRoleName(name: name, reason: "it does not start with a lower-case letter")
        }
        if let bad = name.first(where: { !allowed.contains($0) }) {
            let shown = bad.unicodeScalars.map { $0.escaped(asASCII: true) }.joined()
            throw LabServerError.badRoleName(name: name, reason: "it contains '\(shown)'")
        }
        if name.hasPrefix("pg_") { throw LabServerError.badRoleName(name: name, reason: "PostgreSQL reserves names starting with pg_") }
    }

    /// The address a role connects with to this connection's server and database.
    func address(of role: String) -> String {
        let (host, port, database) = connection.endpoint
        let path = database.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? database
        if host.hasPrefix("/") {
            let socket = host.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? host
            return "postgres://\(role)@:\(port)/\(path)?host=\(socket)"
        }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(role)@\(bracketed):\(port)/\(path)"
    }

    /// Maps the server's "insufficient privilege" to a sentence about who may administer a lab.
    func administering<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch LabServerError.statement(let state, let reason) where state == "42501" {
            throw LabServerError.notAdministrator(role: connection.user, reason: reason)
        }
    }
}
