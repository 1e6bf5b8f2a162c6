import HawalaKeys

extension WalletStore {
    /// The wallet setting that keeps the receive index of a chain.
    static func receiveIndexKey(_ chain: Chain) -> String { "receive.index.\(chain.name)" }

    /// The address `wallet` gives out on `chain` to receive: the same one until a new one is
    /// asked for (`advance`), which moves the kept index on. Hawala doesn't watch the chain, so
    /// it can't tell which addresses were used: a new one is given when asked. Past the
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
}
