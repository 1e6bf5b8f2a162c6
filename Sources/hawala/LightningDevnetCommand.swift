import ArgumentParser
import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaPaper
import HawalaText
import HawalaWallet

struct LightningDevnet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devnet", abstract: "Devnet only: test funds on the development network.",
        subcommands: [LightningDevnetFund.self, LightningDevnetServe.self, LightningDevnetRates.self, LightningDevnetVoucher.self, LightningDevnetLogin.self,
                      LightningDevnetDeposit.self, LightningDevnetMine.self, LightningDevnetFees.self])
}

struct LightningDevnetFund: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fund", abstract: "Give this wallet test funds on devnet (needs the wallet password).")
    @OptionGroup var options: LightningOptions
    @Argument(help: "Amount in sat (100000, 100,000 or 100_000).", transform: SatsArgument.parse) var sats: Sats

    func validate() throws {
        do { try PaymentLimits.check(amount: sats) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        let info = try await options.open(signing: true).closing { try await $0.fund(sats: sats) }
        print("devnet: funded \(AmountText.sats(sats)); balance \(satsText(info.balanceMsat, .down))")
    }
}

/// An amount of sats as typed on the command line, read as the app reads it ("2500", "2,500",
/// "2_500"; `AmountText.parseSats`).
