import Foundation
import HawalaHome

/// Where Hawala keeps its data: `$HAWALA_HOME`, else `$XDG_DATA_HOME/hawala`, else
/// `~/.local/share/hawala`. The folder is private to the user (0700), its files 0600.
public struct WalletHome: Sendable, Equatable {
    public let directory: URL

    public init(directory: URL) { self.directory = directory }

    /// The folder the environment names (`HawalaHome`).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> WalletHome {
        WalletHome(directory: HawalaHome.directory(environment: environment))
    }

    /// The wallet database.
    public var databaseURL: URL { directory.appendingPathComponent("wallets.sqlite") }

    /// Folders beside the database that hold one sub-folder per wallet: `spark/<wallet-id>/`,
    /// the Spark SDK's state and logs. Deleting a wallet deletes its sub-folders.
    public static let perWalletFolders = ["spark"]

    /// `folder`'s sub-folder for the wallet `walletID` (one of `perWalletFolders`).
    public func walletFolder(_ folder: String, walletID: String) -> URL {
        directory.appendingPathComponent(folder).appendingPathComponent(walletID)
    }

    /// Whether the database exists (commands that only read must not create it).
    public var exists: Bool { FileManager.default.fileExists(atPath: databaseURL.path) }

    /// Whether the database exists; throws `WalletError.notAFolder` when the home is a file
    /// (a mistyped `$HAWALA_HOME`), instead of reading that as "no wallets".
    public func existing() throws -> Bool {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw WalletError.notAFolder(directory.path)
        }
        return exists
    }

    /// Runs `body` holding an exclusive lock on the home (`.lock`), so that two processes never
    /// create or migrate the database at once.
    func withLock<T>(_ body: () throws -> T) throws -> T {
        let fd = open(directory.appendingPathComponent(".lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw WalletError.home(path: directory.path, operation: .lock, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw WalletError.home(path: directory.path, operation: .lock, reason: String(cString: strerror(errno))) }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// Creates the folder (0700) if needed and tightens its mode if it was looser.
    func prepare() throws {
        let path = directory.path
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw WalletError.home(path: path, operation: .create, reason: error.localizedDescription)
        }
        guard chmod(path, 0o700) == 0 else { throw WalletError.home(path: path, operation: .restrict, reason: String(cString: strerror(errno))) }
    }
}
