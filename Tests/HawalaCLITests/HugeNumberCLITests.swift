import Foundation
import HawalaTestSupport
import Testing

/// Issue 39, item 1: `ln pay … --amount 18446744073709` once ended in "Illegal instruction"
/// (an overflow in the fee). Every amount and number the command line takes, at the largest
/// values, gets a clear refusal and an exit code that means it — never a signal.
@Suite("hawala: the largest numbers in every amount option")
struct HugeNumberCLITests {
    /// 2^53, 2^63−1, 2^64−1, 2^64, the supply + 1 sat, 21,000,000 BTC, negative, an exponent.
    static let values = ["9007199254740992", "9223372036854775807", "18446744073709551615", "18446744073709551616",
                         "2099999997690001", "2,100,000,000,000,000", "-5", "1e30"]

    /// Each command with `V` where the number goes.
    static let commands: [[String]] = [
        ["ln", "pay", "INVOICE", "--amount", "V", "--yes"],
        ["ln", "pay", "INVOICE", "--amount", "1000", "--max-fee", "V", "--yes"],
        ["ln", "pay", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", "--amount", "V", "--yes"],
        ["ln", "invoice", "--amount", "V"],
        ["ln", "invoice", "--amount", "1000", "--expiry", "V"],
        ["ln", "withdraw", "lnurl1dp68gurn8ghj7um9wfmxjcm99e3k7mf0v9cxj0m385ekvcenxc6r2c35xvukxefcv5mkvv34x5ekzd3ev56nyd3hxqurzepexejxxepnxscrvwfnv9nxzcn9xq6xyefhvgcxxcmyxymnserxfq5fns", "--amount", "V"],
        ["ln", "devnet", "fund", "V"],
        ["ln", "devnet", "voucher", "--amount", "V"],
        ["ln", "devnet", "deposit", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", "V"],
        ["ln", "devnet", "mine", "V"],
        ["ln", "devnet", "fees", "--fast", "V", "--medium", "V", "--slow", "V"],
        ["ln", "config", "--max-claim-fee", "V"],
        ["ln", "deposits", "claim", String(repeating: "ab", count: 32) + ":0", "--max-fee", "V"],
        ["ln", "deposits", "refund", String(repeating: "ab", count: 32) + ":0", "--to", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", "--fee-rate", "V", "--yes"],
        ["ln", "exit", "check", "--fee-rate", "V"],
        ["ln", "history", "--limit", "V"],
        ["ln", "history", "--offset", "V"],
        ["ln", "history", "--limit", "V", "--offset", "V"],
        ["ln", "balance", "--sync-timeout", "V"],
        ["ln", "watch", "--timeout", "V"],
        ["ln", "invoice", "--amount", "10", "--wait", "--timeout", "V"],
        ["wallet", "receive", "--amount", "V"],
        ["wallet", "addresses", "--count", "V"],
    ]

    @Test func everyAmountOptionRefusesTheLargestValues() throws {
        let f = try WalletFixture(), payee = try WalletFixture()
        try payee.write("mnemonic", legalWinner + "\n")
        #expect(try f.restoreAbandon(name: "alice").status == 0 && payee.restoreAbandon(name: "bob").status == 0)
        let ledger = f.data.appendingPathComponent("devnet/ledger.sqlite").path
        for fixture in [f, payee] { #expect(try fixture.run(["ln", "config", "--backend", "devnet:" + ledger]).status == 0) }
        let made = try payee.run(["ln", "invoice", "--amountless", "--password-file", payee.path("password")])
        let invoice = try #require(made.stdout.split(separator: "\n").first.map(String.init), "\(made.stderr)")
        for command in Self.commands {
            for value in Self.values {
                let arguments = command.map { $0 == "V" ? value : $0 == "INVOICE" ? invoice : $0 } + ["--password-file", f.path("password")]
                let result = try f.run(arguments)
                let line = arguments.joined(separator: " ")
                // A count may be as large as it likes (`--limit`); nothing may end in a signal.
                #expect((0...3).contains(result.status), "\(line): exit \(result.status)\n\(result.stderr)")
                #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("runtime failure"),
                        "\(line): \(result.stderr.prefix(300))")
            }
        }
        // An amount that can exist, but not from this balance: refused in one line, nothing paid.
        let large = try f.run(["ln", "pay", invoice, "--amount", "99,999,999,999,999", "--yes", "--password-file", f.path("password")])
        #expect(large.status == 1 && large.errorLines.last?.hasPrefix("insufficient balance: 0 sat available") == true, "\(large.stderr)")
        let negative = try f.run(["ln", "pay", invoice, "--amount", "-5", "--yes"])
        #expect(negative.status == 2 && negative.stderr.contains("that is a negative amount"), "\(negative.stderr)")
        let tooMuch = try f.run(["ln", "invoice", "--amount", "2100000000000000"])
        #expect(tooMuch.status == 2 && tooMuch.stderr.contains("more than all the bitcoin there will ever be"), "\(tooMuch.stderr)")
    }
}
