import ArgumentParser
import HawalaWallet

/// `hawala` with no arguments in a terminal: create or restore a first wallet, or show where
/// things stand.
enum Onboarding {
    static func run() throws {
        let home = WalletHome.fromEnvironment()
        if try home.existing(), let current = try WalletStore(home: home, create: false).current() {
            print("Hawala — current wallet: \(current.name) (\(current.network.rawValue)); backup: \(current.backup.summary)")
            print("See `hawala --help` and `hawala wallet --help`.")
            return
        }
        guard let terminal = Terminal.open() else { print(Hawala.helpMessage()); return }
        terminal.line("Welcome to Hawala, a self-custodial wallet: your keys stay on this machine, and only you can recover them.")
        let choice = try terminal.choose("[c]reate a new wallet, [r]estore one from its words, or [q]uit? ",
                                         hint: "Type c to create, r to restore, or q to quit.") { answer -> Character? in
            switch answer.lowercased() {
            case "c", "create": "c"
            case "r", "restore": "r"
            case "q", "quit": "q"
            default: nil
            }
        }
        switch choice {
        case "c": try WalletCreate.parse([]).run()
        case "r": try WalletRestore.parse([]).run()
        default: print("See `hawala --help`.")
        }
    }
}
