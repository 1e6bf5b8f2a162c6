import ArgumentParser
import HawalaWallet

/// `hawala` with no arguments in a terminal: create or restore a first wallet, or show where
/// things stand.
enum Onboarding {
    static func run() throws {
        let home = WalletHome.fromEnvironment()
        if home.exists, let current = try WalletStore(home: home, create: false).current() {
            print("Hawala — current wallet: \(current.name) (\(current.network.rawValue)); backup: \(current.backup.summary)")
            print("See `hawala --help` and `hawala wallet --help`.")
            return
        }
        guard let terminal = Terminal.open() else { print(Hawala.helpMessage()); return }
        terminal.line("Welcome to Hawala, a self-custodial wallet: your keys stay on this machine, and only you can recover them.")
        let answer = try terminal.ask("[c]reate a new wallet, [r]estore one from its words, or [q]uit? ").trimmingCharacters(in: .whitespaces).lowercased()
        switch answer {
        case "c", "create":
            let command = try WalletCreate.parse([])
            try command.run()
        case "r", "restore":
            let command = try WalletRestore.parse([])
            try command.run()
        default:
            print("See `hawala --help`.")
        }
    }
}
