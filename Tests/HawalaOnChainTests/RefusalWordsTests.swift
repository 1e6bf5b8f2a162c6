import HawalaOnChain
import HawalaText
import Testing

/// What a person or a file can put in front of the on-chain wallet and get refused in words:
/// a label that would drive a terminal, a node address with a password (never repeated), an
/// amount in the other coin.
@Suite struct RefusalWordsTests {
    @Test func labelsArePlainText() throws {
        let txid = String(repeating: "ab", count: 32)
        for hostile in ["\u{1B}[2J\u{1B}[H", "line1\nline2", "rent\r", "\u{202E}tnem\u{202C}", "\u{2066}x"] {
            #expect(throws: OnChainError.self) { try WalletLabel(kind: .tx, ref: txid, label: hostile) }
        }
        #expect(try WalletLabel(kind: .tx, ref: txid, label: "rent ✓ 👩‍👩‍👧").label == "rent ✓ 👩‍👩‍👧")
    }

    @Test func aNodeAddressWithCredentialsIsNeverRepeated() {
        let refusal = Result { try CoreRPC(url: "http://alice:hunter2secret@127.0.0.1:9332", auth: .none) }
        guard case .failure(let error) = refusal else { Issue.record("accepted"); return }
        #expect(!"\(error)".contains("hunter2secret") && !"\(error)".contains("alice") && "\(error)".contains("127.0.0.1:9332"), "\(error)")
    }

    @Test func anAmountInTheOtherCoinIsRefused() throws {
        #expect(throws: OnChainError.self) { try Coin.litecoin.parseAmount("0.5 BTC", unit: .sat) }
        #expect(throws: OnChainError.self) { try Coin.bitcoin.parseAmount("2500 litoshi", unit: .sat) }
        #expect(try Coin.litecoin.parseAmount("0.5 LTC", unit: .sat) == Sats(50_000_000))
        #expect(try Coin.litecoin.parseAmount("2,500 litoshi", unit: .btc) == Sats(2_500))
    }
}
