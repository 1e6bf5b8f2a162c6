import Foundation
import HawalaLightning
import HawalaWallet

extension PaymentExport {
    /// Writes the wallet's payments matching `filter` to `url` atomically (a crash leaves no part of a file):
    /// an existing file is replaced only when `replace`. `progress` hears the bytes written so
    /// far. Returns how many payments were written.
    /// - Throws: `HawalaFileError.exists` for an existing file, `.io` for the disk.
    @discardableResult
    public static func write(_ format: Format, store: WalletStore, walletID: String, filter: PaymentFilter = PaymentFilter(), to url: URL, replace: Bool = false,
                             progress: (_ bytes: Int) -> Void = { _ in }) throws -> Int {
        var count = 0
        try AtomicFile.write(to: url, replace: replace, produce: { fd, _ in
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
            var written = 0
            count = try write(format, store: store, walletID: walletID, filter: filter) { data in
                try handle.write(contentsOf: data)
                written += data.count
                progress(written)
            }
        })
        return count
    }
}
