// libFuzzer target (`make fuzz`): built only when HAWALA_FUZZ is set, with
// -sanitize=fuzzer,address -parse-as-library. The targets are in HawalaBackup's FuzzEntry and,
// for a first byte of 0xC0 or more, HawalaLightning's LightningFuzzEntry.
@_spi(Fuzzing) import HawalaBackup
@_spi(Fuzzing) import HawalaLightning

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    if let first = input.first, first >= 0xC0 {
        LightningFuzzEntry.run(input)
    } else {
        FuzzEntry.run(input)
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
