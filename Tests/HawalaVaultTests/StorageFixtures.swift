import Foundation
import HawalaVault
import HawalaVaultStorage
import HawalaVaultPostgres
import PostgresNIO
import Testing

/// The storages every vault test runs on: SQLite always, PostgreSQL when
/// `$HAWALA_TEST_POSTGRES` names a server (`make test` starts one: scripts/test-postgres.sh).
/// With `HAWALA_REQUIRE_POSTGRES=1` (set by `make test`) a missing server fails the run
/// instead of narrowing it.
enum StorageKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    static var enabled: [StorageKind] { TestPostgres.adminURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    var testDescription: String { rawValue }

    /// A fresh, empty storage: a new SQLite file, or a new PostgreSQL database.
    func makeStorage() async throws -> any VaultStorage {
        try await makeStorages(count: 1)[0]
    }

    /// `count` storages over one fresh database, as separate server processes would open it.
    func makeStorages(count: Int) async throws -> [any VaultStorage] {
        switch self {
        case .sqlite:
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hawala-vault-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            return try (0..<count).map { _ in try SQLiteVaultStorage(path: dir.appendingPathComponent("vault.sqlite").path) }
        case .postgres:
            let url = try await TestPostgres.newDatabase()
            var storages: [any VaultStorage] = []
            for _ in 0..<count { storages.append(try await PostgresVaultStorage.open(url: url)) }
            return storages
        }
    }
}

/// The PostgreSQL server of the test run.
enum TestPostgres {
    /// e.g. postgres://postgres@127.0.0.1:54329/postgres?sslmode=disable
    static let adminURL = ProcessInfo.processInfo.environment["HAWALA_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }

    /// Creates a database with a new name and returns its address.
    static func newDatabase() async throws -> String {
        let name = "hawala_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await execute("CREATE DATABASE \(name)", database: nil)
        var components = URLComponents(string: adminURL!)!
        components.path = "/" + name
        return components.string!
    }

    /// Runs one statement as the administrator, in `database` (nil: the admin URL's own).
    static func execute(_ sql: String, database: String?) async throws {
        var url = try PostgresURL(adminURL!).configuration
        if let database { url.database = database }
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let client = PostgresClient(configuration: url, backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            try await client.query(PostgresQuery(unsafeSQL: sql))
            group.cancelAll()
        }
    }
}

@Suite("Test environment")
struct TestEnvironmentTests {
    /// `make test` promises the PostgreSQL runs; this keeps it from silently not happening.
    @Test func postgresIsThereWhenRequired() {
        if ProcessInfo.processInfo.environment["HAWALA_REQUIRE_POSTGRES"] == "1" {
            #expect(TestPostgres.adminURL != nil, "HAWALA_REQUIRE_POSTGRES=1 but HAWALA_TEST_POSTGRES is not set")
        }
    }
}
