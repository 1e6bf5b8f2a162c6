import ArgumentParser
import Foundation
import HawalaText

/// Flushes stdout (a pipe buffers until exit otherwise).
func flushOutput() { fflush(nil) }

/// An amount in sat as typed on the command line (100000, 100,000 or 100_000).
/// An on-chain amount: a whole number of the chain's base unit (sat or litoshi), digits grouped
/// or not — words that fit Litecoin as well as Bitcoin.
enum BaseUnitsArgument {
    static func parse(_ text: String) throws -> Sats {
        let digits = text.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || ",_ ".contains($0)) }) else {
            throw ValidationError("an amount is a whole number of the chain's base unit (sat, litoshi), like 150000 or 150,000")
        }
        do { return try AmountText.parseSats(digits) } catch {
            throw ValidationError("an amount is a whole number of the chain's base unit (sat, litoshi), like 150000 or 150,000, at most 21 million coins")
        }
    }
}

enum SatsArgument {
    static func parse(_ text: String) throws -> Sats {
        do {
            return try AmountText.parseSats(text)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
