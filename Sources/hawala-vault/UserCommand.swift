import ArgumentParser
import Foundation
import HawalaVault

/// `hawala-vault user …`: who may store backups.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "The server's users: add, list, revoke, rotate a token.",
        subcommands: [Add.self, List.self, Revoke.self, Rotate.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user; prints only its new bearer token (the server keeps a hash).")
        @Argument(help: "User or device name.") var name: String
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            print(try await database.with { try await $0.addUser(name, now: Date()) })
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the users: name, since when, revoked, backups and bytes stored.")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "JSON output: an array of {name, createdAt, revoked, backups, bytes}.") var json = false

        struct Row: Encodable {
            let name: String
            let createdAt: String
            let revoked: Bool
            let backups: Int
            let bytes: Int64
        }

        func run() async throws {
            let users = try await database.with { try await $0.users() }
            if json {
                try printJSON(users.map { Row(name: $0.name, createdAt: ISO8601.string($0.createdAt), revoked: $0.revoked, backups: $0.backups, bytes: $0.bytes) })
                return
            }
            if users.isEmpty { FileHandle.standardError.write(Data("no users; add one with `hawala-vault user add NAME`\n".utf8)) }
            for u in users {
                print("\(u.name)  since \(ISO8601.string(u.createdAt))  \(u.revoked ? "revoked" : "active")  \(u.backups) backup\(u.backups == 1 ? "" : "s"), \(u.bytes) bytes")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a user's token (its backups stay; `user add` or `user rotate` gives the name a new token).")
        @Argument(help: "User or device name.") var name: String
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await database.with { try await $0.revokeUser(name) }
            FileHandle.standardError.write(Data("revoked \"\(name)\"\n".utf8))
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a user a new token in one step (the old one stops working); prints only the new token.")
        @Argument(help: "User or device name.") var name: String
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            print(try await database.with { try await $0.rotateToken(name) })
        }
    }
}
