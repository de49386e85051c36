import Foundation
import PostgresNIO

/// Where the replication tables live: a `postgres://` (or `postgresql://`) URL, parsed once.
///
/// The URL has the usual form, `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`; a host may
/// be a Unix socket directory given as `?host=/run/postgresql`. This first version speaks
/// plain TCP only: `sslmode=disable` (the default here) or `sslmode=prefer` are accepted,
/// `require` and stronger are refused rather than silently sent in clear text.
///
/// For example:
///
/// ```swift
/// let location = try PostgresLocation("postgres://strata@127.0.0.1:5432/replication")
/// print(location)  // postgres://strata@127.0.0.1:5432/replication
/// ```
public struct PostgresLocation: Sendable, CustomStringConvertible {
    /// The server's host name or address (or the socket directory).
    public let host: String
    /// The TCP port (5432 when the URL names none).
    public let port: Int
    /// The user to log in as.
    public let user: String
    /// The database that holds the replication tables.
    public let database: String
    private let password: String?
    private let socketDirectory: String?

    /// Parses `url`.
    ///
    /// - Throws: ``ReplicationError`` `invalidURL`, saying which part is wrong.
    public init(_ url: String) throws(ReplicationError) {
        guard let components = URLComponents(string: url),
              let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw ReplicationError(.invalidURL, "“\(Self.redacted(url))” is not a postgres:// URL; write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE.")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let sslMode = query["sslmode"] ?? "disable"
        guard ["disable", "allow", "prefer"].contains(sslMode) else {
            throw ReplicationError(.invalidURL, "sslmode=\(sslMode) asks for TLS, which this version of StrataReplication does not speak yet; use sslmode=disable on a trusted network (or a local socket).")
        }
        socketDirectory = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        guard let host = components.host.flatMap({ $0.isEmpty ? nil : $0 }) ?? socketDirectory else {
            throw ReplicationError(.invalidURL, "\(Self.redacted(url)) names no host; write postgres://USER@HOST/DATABASE.")
        }
        guard let user = components.user, !user.isEmpty else {
            throw ReplicationError(.invalidURL, "\(Self.redacted(url)) names no user; write postgres://USER@HOST/DATABASE.")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty else {
            throw ReplicationError(.invalidURL, "\(Self.redacted(url)) names no database; write postgres://USER@HOST/DATABASE.")
        }
        self.host = host
        self.port = components.port ?? Int(query["port"] ?? "") ?? 5432
        self.user = user
        self.password = components.password
        self.database = database
    }

    /// The URL without its password, for messages and logs.
    public var description: String {
        if let socketDirectory { return "postgres://\(user)@/\(database)?host=\(socketDirectory)" }
        return "postgres://\(user)@\(host):\(port)/\(database)"
    }

    /// The connection configuration for PostgresNIO.
    var configuration: PostgresConnection.Configuration {
        if let socketDirectory {
            return PostgresConnection.Configuration(unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user,
                                                    password: password, database: database)
        }
        return PostgresConnection.Configuration(host: host, port: port, username: user, password: password,
                                                database: database, tls: .disable)
    }

    /// `url` with any password replaced by `***`.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? "(a URL)"
    }
}
