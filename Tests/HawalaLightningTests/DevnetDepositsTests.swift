import Foundation
import HawalaCrypto
import HawalaDevnet
import HawalaKeys
import HawalaText
import HawalaWallet
import Testing
@testable import HawalaLightning
import HawalaTestSupport

@Suite("Deposits: on-chain bitcoin into Lightning, on devnet")
struct DevnetDepositsTests {
    func wallet(ledger: String) async throws -> LightningSession {
        let (store, keyring) = try newStore()
        let wallet = try store.add(mnemonic: try Mnemonic(text: abandonAbout), passphrase: SecretBytes([]), name: "W", network: .mainnet, keyring: keyring)
        return try await LightningSession.open(store: store, wallet: wallet, backend: "devnet:" + ledger, signing: true, backends: .devnet) { keyring }
    }

    /// A deposit waits for three confirmations, then the sync claims it under the wallet's cap:
    /// its value less the claim fee is a received payment; the address is not given again once
    /// it received.
    @Test func depositWaitsThenIsClaimed() async throws {
        let ledger = temporaryLedger()
        let session = try await wallet(ledger: ledger)
        let address = try await session.backend.receiveAddress(.bitcoin)
        let again = try await session.backend.receiveAddress(.bitcoin)
        #expect(address.hasPrefix("bcrt1q") && again == address, "the same until used")
        #expect(try await session.backend.newDepositAddress() != address)
        let txid = try DevnetChain.deposit(ledgerPath: ledger, address: address, sats: 50_000)
        #expect(try await session.backend.listDeposits().map(\.state) == [.waiting(confirmations: 0, needed: 3)])
        _ = try DevnetChain.mine(ledgerPath: ledger, blocks: 2)
        try await session.lightning.sync()
        #expect(try await session.backend.listDeposits().map(\.state) == [.waiting(confirmations: 2, needed: 3)])
        _ = try DevnetChain.mine(ledgerPath: ledger, blocks: 1)
        try await session.lightning.sync()
        let claimed = try #require(try await session.backend.listDeposits().first)
        #expect(claimed.txid == txid && claimed.state == .claimed(feeSat: Sats(clamping: 5 * ClaimFeePolicy.claimVbytes)))  // devnet's medium rate, 5 sat/vB
        #expect(try await session.balance().info.balanceSats.value == 50_000 - 750)
        let received = try #require(try session.lightning.history(PaymentFilter(type: .receive)).first)
        #expect(received.amountMsat == 49_250_000 && received.details.txid == txid && received.feeSats == 750 && received.isOnChain)
        let next = try await session.backend.receiveAddress(.bitcoin)
        #expect(next != address, "a used address is not given again")
        await #expect(throws: DepositError.notADevnetAddress("tb1qxyz")) {
            _ = try DevnetChain.deposit(ledgerPath: ledger, address: "tb1qxyz", sats: 1)
        }
        await session.close()
    }

    /// Fees rise above a fixed cap: the deposit is not claimed, with the fee it needs; a higher
    /// cap claims it; another is sent elsewhere (to an address of the network only); dust is
    /// not worth claiming.
    @Test func aCapTooLowStrandsUntilClaimedOrRefunded() async throws {
        let ledger = temporaryLedger()
        let session = try await wallet(ledger: ledger)
        _ = try DevnetChain.fees(ledgerPath: ledger, set: (fast: 50, medium: 20, slow: 10))
        session.backend.setClaimFeePolicy(try ClaimFeePolicy(parsing: "2/vB"))
        let address = try await session.backend.receiveAddress(.bitcoin)
        let stranded = try DevnetChain.deposit(ledgerPath: ledger, address: address, sats: 40_000)
        let other = try DevnetChain.deposit(ledgerPath: ledger, address: address, sats: 30_000)
        let dust = try DevnetChain.deposit(ledgerPath: ledger, address: address, sats: 500)
        _ = try DevnetChain.mine(ledgerPath: ledger, blocks: 3)
        try await session.lightning.sync()
        let states = Dictionary(uniqueKeysWithValues: try await session.backend.listDeposits().map { ($0.txid, $0.state) })
        #expect(states[stranded] == .notClaimed(.feeAboveCap(requiredSat: 3_000, capSat: 300)))
        #expect(states[dust] == .notClaimed(.belowDust))
        #expect(try await session.balance().info.balanceSats == 0)

        let claimed = try await session.backend.claimDeposit(txid: stranded, vout: 0, policy: .default)
        #expect(claimed.state == .claimed(feeSat: 3_000) && claimed.stateText == "claimed (fee 3,000 sat)")
        await #expect(throws: LightningError.wrongAddress("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", network: .regtest, backendName: "devnet")) {
            _ = try await session.backend.refundDeposit(txid: other, vout: 0, to: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", satPerVbyte: 10)
        }
        let refunded = try await session.backend.refundDeposit(txid: other, vout: 0, to: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", satPerVbyte: 10)
        guard case .refunded = refunded.state else { Issue.record("not refunded: \(refunded.state)"); return }
        await #expect(throws: DepositError.self) { _ = try await session.backend.claimDeposit(txid: other, vout: 0, policy: .default) }
        #expect(try await session.balance().info.balanceSats.value == 40_000 - 3_000)
        await session.close()
    }

    @Test func claimFeePolicies() throws {
        let fees = RecommendedFees(fastest: 30, halfHour: 12, hour: 5, economy: 2, minimum: 1)
        #expect(try ClaimFeePolicy(parsing: "network") == .default && ClaimFeePolicy.default.capSat(fees: fees).value == 13 * 150)
        #expect(try ClaimFeePolicy(parsing: "network+4").capSat(fees: fees).value == 16 * 150)
        #expect(try ClaimFeePolicy(parsing: "5/vB") == .rate(satPerVbyte: 5) && (try ClaimFeePolicy(parsing: "5 sat/vB")) == .rate(satPerVbyte: 5))
        #expect(try ClaimFeePolicy(parsing: "2,000") == .fixed(sats: 2_000) && ClaimFeePolicy.fixed(sats: 2_000).capSat(fees: fees) == 2_000)
        for saved in ["network+1", "7/vB", "900"] { #expect(try ClaimFeePolicy(parsing: saved).saved == saved) }
        for bad in ["", "cheap", "0/vB", "network+x", "-5"] {
            #expect(throws: DepositError.invalidClaimFeePolicy(bad)) { try ClaimFeePolicy(parsing: bad) }
        }
        #expect(throws: DepositError.invalidOutpoint("abc:0")) { try Deposit.outpoint("abc:0") }
        #expect(try Deposit.outpoint(String(repeating: "AB", count: 32) + ":7") == (String(repeating: "ab", count: 32), 7))
    }
}
