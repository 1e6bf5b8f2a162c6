import HawalaKeys
import HawalaText

/// What a wallet shows to receive on one chain: the address, where it was derived, and the
/// BIP21 request (`bitcoin:…?amount=…`) on the chains that have one.
public struct AddressRequest: Sendable, Equatable, JSONRepresentable {
    public let chain: Chain
    /// The receive index on the chain (0-based).
    public let index: Int
    public let address: DerivedAddress
    /// The BIP21 URI on Bitcoin-family chains; nil elsewhere.
    public let uri: String?

    /// The text to put in a QR code: the request, else the address.
    public var qrText: String { uri ?? address.address }

    /// Whether the URI says more than the address (an amount, a label or a message).
    public var uriAddsToAddress: Bool { uri.map { $0 != "\(BIP21.scheme(for: chain) ?? ""):\(address.address)" } ?? false }

    /// `{chain, index, path, address, uri}` (`hawala wallet receive --json`).
    public var json: JSONValue {
        .object([("chain", .string(chain.name)), ("index", .int(index)), ("path", .string(address.path)),
                 ("address", .string(address.address)), ("uri", uri.map { .string($0) } ?? .null)])
    }
}

extension WalletStore {
    /// The wallet setting that keeps the receive index of a chain.
    static func receiveIndexKey(_ chain: Chain) -> String { "receive.index.\(chain.name)" }

    /// The chain a wallet receives on when none is named: its Bitcoin chain.
    public static func defaultReceiveChain(of wallet: WalletSummary) -> Chain {
        wallet.network == .testnet ? .bitcoinTestnet : .bitcoin
    }

    /// The address `wallet` gives out on `chain` to receive: the same one until a new one is
    /// asked for (`advance`), which moves the kept index on: this needs no node, so it can't tell
    /// which addresses were used (the on-chain wallet, `HawalaOnChain`, can, for Bitcoin and Litecoin). Past the
    /// addresses kept without the password, Solana and Cardano need `keyring`
    /// (`WalletError.passwordNeeded` without it).
    public func receiveAddress(wallet: WalletSummary, chain: Chain, advance: Bool, keyring: Keyring? = nil) throws -> (address: DerivedAddress, index: Int) {
        let key = WalletStore.receiveIndexKey(chain)
        let current = try setting(key, walletID: wallet.id).flatMap { Int($0) } ?? 0
        let index = advance ? current + 1 : current
        guard index < 100_000 else { throw WalletError.receiveAddressesExhausted(chain: chain.name) }
        let addresses = try keyring.map { try self.addresses(wallet: wallet, chain: chain, count: index + 1, keyring: $0) }
            ?? self.addresses(wallet: wallet, chain: chain, count: index + 1)
        if advance { try setSetting(key, to: String(index), walletID: wallet.id) }
        return (addresses[index], index)
    }

    /// The request to receive on `chain` (nil: the wallet's Bitcoin chain). A request the chain
    /// can't carry (an amount, label or message outside the Bitcoin family) is refused before a
    /// new address is given out. `unlock` is called only when the address needs the secret; the
    /// cached keys are then checked against it.
    public func addressRequest(wallet: WalletSummary, chain: Chain?, amountSats: UInt64? = nil, label: String? = nil, message: String? = nil,
                               advance: Bool, unlock: () throws -> Keyring) throws -> AddressRequest {
        let chain = chain ?? WalletStore.defaultReceiveChain(of: wallet)
        let hasScheme = BIP21.scheme(for: chain) != nil
        if !hasScheme, amountSats != nil || label != nil || message != nil { throw BIP21.Error.notBitcoinFamily(chain.name) }
        let receive: (address: DerivedAddress, index: Int)
        do {
            receive = try receiveAddress(wallet: wallet, chain: chain, advance: advance)
        } catch WalletError.passwordNeeded {
            let keyring = try unlock()
            try verifyCachedKeys(of: wallet, keyring: keyring)
            receive = try receiveAddress(wallet: wallet, chain: chain, advance: advance, keyring: keyring)
        }
        let uri = hasScheme ? try BIP21.uri(chain: chain, address: receive.address.address, amountSats: amountSats, label: label, message: message) : nil
        return AddressRequest(chain: chain, index: receive.index, address: receive.address, uri: uri)
    }
}
