import Foundation
import HawalaCrypto
import HawalaKeys
import HawalaOnChain
import HawalaTestSupport
import HawalaText
import Testing

/// PSBTs (BIP174 v0): the BIP's own files read and written back byte for byte; a payment made as
/// a PSBT without the keys, read by Litecoin Core's `decodepsbt`, signed by the wallet that holds
/// them, accepted by the node's mempool, and mined.
@Suite struct PSBTTests {
    /// BIP174's test vectors: "PSBT with one P2PKH input. Outputs are empty" and "PSBT with one
    /// P2PKH input and one P2SH-P2WPKH input. First input is signed and finalized. Outputs are empty".
    static let oneP2PKH = "cHNidP8BAHUCAAAAASaBcTce3/KF6Tet7qSze3gADAVmy7OtZGQXE8pCFxv2AAAAAAD+////AtPf9QUAAAAAGXapFNDFmQPFusKGh2DpD9UhpGZap2UgiKwA4fUFAAAAABepFDVF5uM7gyxHBQ8k0+65PJwDlIvHh7MuEwAAAQD9pQEBAAAAAAECiaPHHqtNIOA3G7ukzGmPopXJRjr6Ljl/hTPMti+VZ+UBAAAAFxYAFL4Y0VKpsBIDna89p95PUzSe7LmF/////4b4qkOnHf8USIk6UwpyN+9rRgi7st0tAXHmOuxqSJC0AQAAABcWABT+Pp7xp0XpdNkCxDVZQ6vLNL1TU/////8CAMLrCwAAAAAZdqkUhc/xCX/Z4Ai7NK9wnGIZeziXikiIrHL++E4sAAAAF6kUM5cluiHv1irHU6m80GfWx6ajnQWHAkcwRAIgJxK+IuAnDzlPVoMR3HyppolwuAJf3TskAinwf4pfOiQCIAGLONfc0xTnNMkna9b7QPZzMlvEuqFEyADS8vAtsnZcASED0uFWdJQbrUqZY3LLh+GFbTZSYG2YVi/jnF6efkE/IQUCSDBFAiEA0SuFLYXc2WHS9fSrZgZU327tzHlMDDPOXMMJ/7X85Y0CIGczio4OFyXBl/saiK9Z9R5E5CVbIBZ8hoQDHAXR8lkqASECI7cr7vCWXRC+B3jv7NYfysb3mk6haTkzgHNEZPhPKrMAAAAAAAAA"
    static let firstSigned = "cHNidP8BAKACAAAAAqsJSaCMWvfEm4IS9Bfi8Vqz9cM9zxU4IagTn4d6W3vkAAAAAAD+////qwlJoIxa98SbghL0F+LxWrP1wz3PFTghqBOfh3pbe+QBAAAAAP7///8CYDvqCwAAAAAZdqkUdopAu9dAy+gdmI5x3ipNXHE5ax2IrI4kAAAAAAAAGXapFG9GILVT+glechue4O/p+gOcykWXiKwAAAAAAAEHakcwRAIgR1lmF5fAGwNrJZKJSGhiGDR9iYZLcZ4ff89X0eURZYcCIFMJ6r9Wqk2Ikf/REf3xM286KdqGbX+EhtdVRs7tr5MZASEDXNxh/HupccC1AaZGoqg7ECy0OIEhfKaC3Ibi1z+ogpIAAQEgAOH1BQAAAAAXqRQ1RebjO4MsRwUPJNPuuTycA5SLx4cBBBYAFIXRNTfy4mVAWjTbr6nj3aAfuCMIAAAA"

    @Test func theBIPsFilesReadAndWriteBack() throws {
        for vector in [Self.oneP2PKH, Self.firstSigned] {
            let psbt = try PSBT(file: Array(vector.utf8))
            #expect(psbt.base64 == vector)
            #expect(try PSBT(file: psbt.bytes) == psbt)
        }
        let signed = try PSBT(file: Array(Self.firstSigned.utf8))
        #expect(signed.transaction.txid.description == "fed6cd1fde4db4e13e7e800317e37f9cbd75ec364389670eeff80da993c7e560")
        #expect(signed.inputs.count == 2 && signed.outputs.count == 2 && !signed.isFinalized)
        // Cut anywhere, it is refused in words, never read half.
        let bytes = try PSBT(file: Array(Self.oneP2PKH.utf8)).bytes
        for length in stride(from: 0, to: bytes.count, by: 7) {
            #expect(throws: OnChainError.self) { try PSBT(bytes: Array(bytes.prefix(length))) }
        }
        #expect(throws: OnChainError.self) { try PSBT(file: Array("not a psbt".utf8)) }
        #expect(throws: OnChainError.self) { try PSBT(file: [UInt8](repeating: 0x41, count: PSBT.maximumBytes + 1)) }
    }

    @Test func createWithoutKeysSignElsewhereBroadcast() async throws {
        let node = try await RegtestNode()
        defer { node.stop() }
        try await node.mine(101)
        let wallet = try await RegtestWallet(node: node)
        for amount: UInt64 in [11_000_000, 7_000_000] { _ = try await node.pay(try wallet.onChain.nextReceiveAddress().address, amount) }
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        let payee = try await node.newAddress()

        // Made from the account's public keys alone.
        let plan = try wallet.onChain.plan(to: payee, amount: .exact(Sats(15_000_000)), feeRate: try FeeRate(4))
        let unsigned = try wallet.onChain.psbt(for: plan, fingerprint: wallet.summary.fingerprint)
        let decoded = try await node.rpc.call("decodepsbt", [unsigned.base64]) as! [String: Any]
        #expect(UInt64(((decoded["fee"] as! Double) * 100_000_000).rounded()) == plan.fee.value)
        let inputs = decoded["inputs"] as! [[String: Any]]
        #expect(inputs.count == plan.inputs.count && inputs.allSatisfy { ($0["bip32_derivs"] as? [[String: Any]])?.first?["path"] as? String != nil })
        #expect(((inputs[0]["bip32_derivs"] as! [[String: Any]])[0]["master_fingerprint"] as? String) == wallet.summary.fingerprint)
        #expect((decoded["tx"] as! [String: Any])["txid"] as? String == unsigned.transaction.txid.description)
        #expect(try unsigned.fee() == plan.fee.value && !unsigned.isFinalized)
        let what = try wallet.onChain.summary(of: unsigned, fingerprint: wallet.summary.fingerprint)
        #expect(what.signable == plan.inputs.count && what.fee == plan.fee)
        #expect(what.payments.filter { !$0.toSelf }.map(\.address) == [payee])

        // Signed by the keys, through the file (base64 text).
        let (signed, count) = try wallet.onChain.sign(try PSBT(file: Array(unsigned.base64.utf8)), keys: wallet.keys)
        #expect(count == plan.inputs.count && signed.isFinalized)
        // Another wallet's keys sign nothing; nor do this wallet's keys at a path outside its account.
        let other = try await RegtestWallet(node: node, words: legalWinner)
        #expect(throws: OnChainError.self) { try other.onChain.sign(unsigned, keys: other.keys) }
        var elsewhere = unsigned
        for i in elsewhere.inputs.indices {
            for j in elsewhere.inputs[i].indices where elsewhere.inputs[i][j].type == 0x06 {
                elsewhere.inputs[i][j].value[4 + 8] ^= 0x01  // account 0' → 1'
            }
        }
        #expect(throws: OnChainError.self) { try wallet.onChain.sign(elsewhere, keys: wallet.keys) }

        let transaction = try signed.extracted()
        let accepted = try await node.rpc.testAccept(transaction.serialized())
        #expect(accepted.allowed, "\(accepted.reason ?? "")")
        let finalized = try await node.rpc.call("finalizepsbt", [signed.base64]) as! [String: Any]
        #expect(finalized["complete"] as? Bool == true && finalized["hex"] as? String == hexString(transaction.serialized()))
        let txid = try await wallet.onChain.broadcast(signed)
        try await node.mine(1)
        _ = try await wallet.onChain.sync()
        #expect(try await node.received(payee) == 15_000_000)
        #expect(try wallet.onChain.ledger().payments.first?.txid == txid)
        #expect(try wallet.onChain.ledger().confirmed.value == 18_000_000 - 15_000_000 - plan.fee.value)
    }
}
