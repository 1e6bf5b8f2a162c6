import ArgumentParser
import CHardening
#if os(Linux)
import CMalloc
#endif
import Dispatch
import Foundation
import NIOCore
import NIOPosix

// `hawala-vault`: the vault server and its operator's commands. It links only the vault
// modules (no key code, no wallet store): it keeps ciphertext it cannot open.
signal(SIGPIPE, SIG_IGN)
hawala_quiet_crashes()
#if os(Linux)
hawala_tune_malloc()
#endif
// Handlers run on NIO's event loops instead of Swift Concurrency's own pool, so a request does
// not hop between two thread pools. Must happen before any task starts.
NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

Task {
    // Every failure ends as one line on stderr: exit 1 for a failed operation, 2 for usage.
    do {
        var command = try HawalaVaultCommand.parseAsRoot(Array(CommandLine.arguments.dropFirst()))
        if var command = command as? AsyncParsableCommand {
            try await command.run()
        } else {
            try command.run()
        }
        exit(0)
    } catch let error as OperatorError {
        FileHandle.standardError.write(Data((error.message + "\n").utf8))
        exit(error.usage ? 2 : 1)
    } catch let error as ExitCode {
        exit(error.rawValue)
    } catch {
        let code = HawalaVaultCommand.exitCode(for: error)
        let message = code == .success || code == .validationFailure ? HawalaVaultCommand.fullMessage(for: error) : String(describing: error)
        if code == .success {
            print(message)
            exit(0)
        }
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(code == .validationFailure ? 2 : 1)
    }
}
dispatchMain()
