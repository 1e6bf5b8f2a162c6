import ArgumentParser
import Foundation
import HawalaCrypto
import HawalaKeys

// Every failure ends as one line on stderr and a meaningful exit code: 1 for bad input or a
// failed operation, 2 for usage errors. Never a stack trace.
signal(SIGPIPE, SIG_IGN)
do {
    var command = try Hawala.parseAsRoot()
    try command.run()
} catch let error as CLIError {
    Output.error(error.message)
    exit(error.code.rawValue)
} catch let error as ExitCode {
    exit(error.rawValue)
} catch {
    let code = Hawala.exitCode(for: error)
    let message = Hawala.fullMessage(for: error)
    if code == .success {
        print(message)
        exit(0)
    }
    if code == .validationFailure {
        Output.error(message)
        exit(2)
    }
    // Library errors carry their own one-line description.
    Output.error(String(describing: error))
    exit(1)
}
