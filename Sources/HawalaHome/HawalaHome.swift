import Foundation

/// Where Hawala keeps its data on this machine: `$HAWALA_HOME`, else `$XDG_DATA_HOME/hawala`
/// (an absolute one), else `~/.local/share/hawala`. Key-free, so the wallet (`WalletHome`) and
/// the vault server (its default SQLite file) read the one rule.
public enum HawalaHome {
    /// The folder the environment names.
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let home = environment["HAWALA_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("hawala", isDirectory: true)
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share/hawala", isDirectory: true)
    }
}
