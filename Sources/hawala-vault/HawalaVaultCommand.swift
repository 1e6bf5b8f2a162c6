import ArgumentParser
import Foundation
import HawalaHome
import HawalaVault
import HawalaVaultStorage
import HawalaVaultPostgres

/// `hawala-vault`: the server that keeps users' encrypted backups, and the operator's tools.
struct HawalaVaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hawala-vault",
        abstract: "The Hawala vault: keeps users' encrypted backups; never sees a key.",
        discussion: """
            It stores only ciphertext (.hawala files sealed on the user's device) under bearer \
            tokens it keeps as hashes. Users connect with `hawala vault login --url URL`. \
            Storage: SQLite (default, vault.sqlite in $HAWALA_HOME, else $XDG_DATA_HOME/hawala) \
            or PostgreSQL (--db postgres://…).
            """,
        version: "hawala-vault 0.1.0",
        subcommands: [Serve.self, UserCommand.self, Check.self])
}

/// A refusal of the operator's input or a failed operation: one line, no stack.
struct OperatorError: Error {
    let message: String
    /// Exit 2 (the command line was wrong) rather than 1.
    var usage = false
}

/// `--db sqlite:PATH` or `--db postgres://…`, shared by every command.
struct DatabaseOptions: ParsableArguments {
    @Option(help: ArgumentHelp("""
        Storage: sqlite:PATH (default: vault.sqlite in $HAWALA_HOME, else in $XDG_DATA_HOME/hawala) or \
        postgres://USER@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require] (?host=/DIR for a Unix socket; \
        the password from $PGPASSWORD only, never in the URL).
        """, valueName: "url")) var db: String?

    /// The default SQLite file: the same directory the wallet uses on this machine, so a
    /// deployment that ran `hawala vault serve` keeps its database.
    static var defaultPath: String { HawalaHome.directory().appendingPathComponent("vault.sqlite").path }

    /// `diskReserve`: bytes an SQLite database keeps in reserve for deleting on a full disk
    /// (the server's; the operator's one-off commands make none).
    func open(diskReserve: Int64 = 0) async throws -> any VaultStorage {
        let text = db ?? "sqlite:" + DatabaseOptions.defaultPath
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            return try await PostgresVaultStorage.open(url: text)
        }
        guard text.hasPrefix("sqlite:"), text.count > 7 else {
            throw OperatorError(message: "--db takes sqlite:PATH or postgres://USER@HOST/DATABASE", usage: true)
        }
        let path = String(text.dropFirst(7))
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        return try SQLiteVaultStorage(path: path, reserveBytes: diskReserve)
    }

    /// Opens the storage, runs `body`, closes it (also when `body` throws).
    func with<T>(_ body: (any VaultStorage) async throws -> T) async throws -> T {
        let storage = try await open()
        do {
            let result = try await body(storage)
            await storage.close()
            return result
        } catch {
            await storage.close()
            throw error
        }
    }
}

/// Prints `value` as every `--json` of these commands does: pretty, keys sorted.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

