import ArgumentParser
import Foundation
import HawalaText
import HawalaVault
import HawalaVaultClient
import HawalaWallet

/// `hawala` with no arguments in a terminal: create or restore a first wallet, or show where
/// things stand.
enum Onboarding {
    static func run() async throws {
        let home = WalletHome.fromEnvironment()
        if try home.existing(), let current = try WalletStore(home: home, create: false).current() {
            print("Hawala — current wallet: \(current.name) (\(current.network.rawValue)); backup: \(current.backup.summary)")
            print("See `hawala --help` and `hawala wallet --help`.")
            return
        }
        guard let terminal = Terminal.open() else { print(Hawala.helpMessage()); return }
        terminal.line("Welcome to Hawala, a self-custodial wallet: your keys stay on this machine, and only you can recover them.")
        let choice = try terminal.choose("[c]reate a new wallet, [r]estore one from its words, restore from a [v]ault backup, or [q]uit? ",
                                         hint: "Type c to create, r to restore from words, v to restore from a vault backup, or q to quit.") { answer -> Character? in
            switch answer.lowercased() {
            case "c", "create": "c"
            case "r", "restore": "r"
            case "v", "vault": "v"
            case "q", "quit": "q"
            default: nil
            }
        }
        switch choice {
        case "c": try WalletCreate.parse([]).run()
        case "r": try WalletRestore.parse([]).run()
        case "v": try await restoreFromVault(terminal)
        default: print("See `hawala --help`.")
        }
    }

    /// A new device: log in to the vault (the password chosen becomes the wallet password), pick
    /// a backup (the newest by default) and restore it with its backup password.
    static func restoreFromVault(_ terminal: Terminal) async throws {
        let url = try terminal.choose("Vault URL (https://…): ", hint: "Type the vault's address, e.g. https://vault.example.com.") { answer -> String? in
            (try? VaultClient.loginURL(answer, allowPlainHTTP: true)).map { _ in answer }
        }
        try await VaultLogin.logIn(url, tokenFile: nil, insecure: false, passwordFile: nil)
        let backups = try await VaultSession.open(passwordFile: nil).client.backups()
        guard !backups.isEmpty else { throw CLIError("the vault holds no backup for this token") }
        for (i, b) in backups.enumerated() { terminal.line("\(i + 1). \(b.createdAt.iso8601)  \(b.sizeBytes) bytes  \(b.type.rawValue)") }
        let chosen = try terminal.choose("Backup to restore [1]: ", hint: "Type a number from 1 to \(backups.count).") { answer -> Int? in
            if answer.isEmpty { return 0 }
            guard let n = Int(answer), (1...backups.count).contains(n) else { return nil }
            return n - 1
        }
        try await VaultRestore.restore(backups[chosen].id, passwordFile: nil, backupPasswordFile: nil, onConflict: nil)
    }
}
