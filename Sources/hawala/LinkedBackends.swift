import HawalaDevnet
import HawalaLightning
#if canImport(HawalaSpark)
import HawalaSpark
#endif

extension BackendOpeners {
    /// The backends this build of the CLI links: devnet always, Spark where its SDK was built
    /// (its log filtered at the command line's log level).
    static var linked: BackendOpeners {
        #if canImport(HawalaSpark)
        BackendOpeners(spark: .sdk(logFilter: SparkBackend.logFilter(logLevel.rawValue)), devnet: .ledger)
        #else
        BackendOpeners(devnet: .ledger)
        #endif
    }
}
