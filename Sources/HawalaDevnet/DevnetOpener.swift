import HawalaLightning

extension DevnetBackend: WatchableBackend, TestFundedBackend {}

extension DevnetOpener {
    /// Devnet backends on their ledger files.
    public static let ledger = DevnetOpener { path, rates, lnurl in try DevnetBackend(ledgerPath: path, rates: rates, lnurl: lnurl) }
}

extension BackendOpeners {
    /// Devnet alone: what tests and tools without the Spark SDK open.
    public static let devnet = BackendOpeners(devnet: .ledger)
}
