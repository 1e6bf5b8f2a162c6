import breez_sdk_sparkFFI
import HawalaLightning

/// The SDK's native library, as loaded: checked once before the first call, so a library that
/// does not match the generated bindings is one clear error instead of the bindings' crash.
public enum SparkLibrary {
    /// The UniFFI contract the bindings were generated for (uniffi-bindgen 0.29).
    static let expectedContractVersion: UInt32 = 29
    /// The checksum of `connect` in the bindings (scripts/install-spark.sh generates both from
    /// the same library; a different library has a different checksum).
    static let expectedConnectChecksum: UInt16 = 40345

    /// Nil when the library can be used, or why not.
    public static let problem: String? = {
        let contract = ffi_breez_sdk_spark_uniffi_contract_version()
        if contract != expectedContractVersion {
            return "the Breez Spark SDK library speaks UniFFI contract \(contract), and Hawala's bindings were made for \(expectedContractVersion): set it up again (scripts/install-spark.sh)"
        }
        if uniffi_breez_sdk_spark_checksum_func_connect() != expectedConnectChecksum {
            return "the Breez Spark SDK library is not the one Hawala's bindings were generated from: set it up again (scripts/install-spark.sh)"
        }
        return nil
    }()

    /// - Throws: `LightningError.backendUnavailable` when the library does not match.
    public static func check() throws {
        if let problem { throw LightningError.backendUnavailable(problem) }
    }
}
