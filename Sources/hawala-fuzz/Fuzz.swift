// libFuzzer target (`make fuzz`): built only when HAWALA_FUZZ is set, with
// -sanitize=fuzzer,address -parse-as-library. The parsers are in three entry points:
// HawalaBackup's FuzzEntry (.hawala files, payloads, envelopes), HawalaKeys' KeysFuzzEntry
// (addresses, extended keys, mnemonics, paths, imported keys, BIP21 amounts, SLIP-39 shares) and
// HawalaLightning's LightningFuzzEntry (BOLT11, payment inputs: BIP21 URIs, LNURL, Lightning
// addresses; LNURL-pay answers). HAWALA_FUZZ_TARGET=backup|keys|lightning sends every input to
// one of them (`make fuzz` gives each its minute); without it the first byte picks:
// 0xC0 and up Lightning, 0x80–0xBF keys, below the backup code.
import Foundation
@_spi(Fuzzing) import HawalaBackup
@_spi(Fuzzing) import HawalaKeys
@_spi(Fuzzing) import HawalaLightning

let target = ProcessInfo.processInfo.environment["HAWALA_FUZZ_TARGET"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let first = input.first ?? 0
    switch target {
    case "backup": FuzzEntry.run(input)
    case "keys": KeysFuzzEntry.run(input)
    case "lightning": LightningFuzzEntry.run(input)
    default:
        if first >= 0xC0 { LightningFuzzEntry.run(input) } else if first >= 0x80 { KeysFuzzEntry.run(input) } else { FuzzEntry.run(input) }
    }
    return 0
}

typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzCallback) -> CInt

/// SwiftPM links an executable's entry point under this name; hand over to libFuzzer's driver.
@_cdecl("hawala_fuzz_main")
public func hawalaFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzz)
}
