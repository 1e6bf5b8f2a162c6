import ArgumentParser
import Foundation
import HawalaText
import HawalaVault
import HawalaVaultStorage

/// `hawala-vault user …`: who may store backups.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "The server's users and their tokens: add, token, list, revoke, rotate.",
        discussion: """
            A token is full (everything its user may do) or append-only: it uploads, lists and downloads \
            backups but never deletes one or changes the settings or the credential backup. Give the \
            unattended agent an append-only token (`user token NAME`) and keep the full one for yourself: \
            whoever steals the agent's token can't destroy your backups.
            """,
        subcommands: [Add.self, Token.self, List.self, Revoke.self, Rotate.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user; prints only its new bearer token (the server keeps a hash).")
        @Argument(help: "User or device name.") var name: String
        @Option(help: "What the token may do: full or append-only.") var scope: VaultScope = .full
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            print(try await database.with { try await $0.addUser(name, scope: scope, now: Date()) })
        }
    }

    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a user another token (for the agent: append-only unless --scope full); prints only the token.")
        @Argument(help: "User or device name.") var name: String
        @Option(help: "What the token may do: append-only or full.") var scope: VaultScope = .appendOnly
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            print(try await database.with { try await $0.addToken(name, scope: scope, now: Date()) })
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the users: name, since when, tokens (or revoked), backups and bytes stored.")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "JSON output: an array of {name, createdAt, revoked, fullTokens, appendOnlyTokens, backups, bytes}.") var json = false

        struct Row: Encodable {
            let name: String
            let createdAt: String
            let revoked: Bool
            let fullTokens: Int
            let appendOnlyTokens: Int
            let backups: Int
            let bytes: Int64
        }

        static func tokens(_ u: VaultUserInfo) -> String {
            if u.revoked { return "revoked" }
            return [(u.fullTokens, "full"), (u.appendOnlyTokens, "append-only")].filter { $0.0 > 0 }
                .map { "\($0.0) \($0.1) token\($0.0 == 1 ? "" : "s")" }.joined(separator: ", ")
        }

        func run() async throws {
            let users = try await database.with { try await $0.users() }
            if json {
                try printJSON(users.map { Row(name: $0.name, createdAt: $0.createdAt.iso8601, revoked: $0.revoked, fullTokens: $0.fullTokens,
                                              appendOnlyTokens: $0.appendOnlyTokens, backups: $0.backups, bytes: $0.bytes) })
                return
            }
            if users.isEmpty { FileHandle.standardError.write(Data("no users; add one with `hawala-vault user add NAME`\n".utf8)) }
            for u in users {
                print("\(u.name)  since \(u.createdAt.iso8601)  \(List.tokens(u))  \(u.backups) backup\(u.backups == 1 ? "" : "s"), \(u.bytes) bytes")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke every token of a user (its backups stay; `user add` or `user rotate` gives the name a new token).")
        @Argument(help: "User or device name.") var name: String
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await database.with { try await $0.revokeUser(name) }
            FileHandle.standardError.write(Data("revoked \"\(name)\"\n".utf8))
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace every token of a user with one new token in one step (the old ones stop working); prints only the new token.")
        @Argument(help: "User or device name.") var name: String
        @Option(help: "What the new token may do: full or append-only.") var scope: VaultScope = .full
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            print(try await database.with { try await $0.rotateToken(name, scope: scope, now: Date()) })
        }
    }
}

extension VaultScope: ExpressibleByArgument {}
