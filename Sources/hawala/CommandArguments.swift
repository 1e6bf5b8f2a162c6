import ArgumentParser
import Foundation
import HawalaText

/// Flushes stdout (a pipe buffers until exit otherwise).
func flushOutput() { fflush(nil) }

/// An amount in sat as typed on the command line (100000, 100,000 or 100_000).
enum SatsArgument {
    static func parse(_ text: String) throws -> Sats {
        do {
            return try AmountText.parseSats(text)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
