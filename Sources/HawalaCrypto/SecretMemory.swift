internal import CHardening
internal import CSodium
import Foundation

/// Where secrets live in memory, and what the process does once it holds one: secrets stay out
/// of core dumps and swap.
///
/// - Each `SecretBytes` is allocated by libsodium's `sodium_malloc`: its own pages, locked in
///   memory (never swapped, where the memory-lock limit allows), marked `MADV_DONTDUMP`
///   (left out of any core file), between guard pages, zeroed when freed.
/// - The first secret makes the whole process protected, for good: no core file
///   (`RLIMIT_CORE`'s soft limit 0: the programs it starts may still set their own) and, on
///   Linux, not dumpable (`PR_SET_DUMPABLE` 0: no core either, and no
///   other process of the same user reads its memory through `/proc` or `ptrace`).
public enum SecretMemory {
    /// Whether this process has been protected (it has held a secret).
    public static var isProcessProtected: Bool { protection }

    /// Protects the process now (done by the first secret; safe to call again).
    public static func protectProcess() { _ = protection }

    /// Whether the kernel would write a core file of this process now (Linux; false elsewhere).
    public static var isDumpable: Bool { hawala_is_dumpable() == 1 }

    private static let protection: Bool = {
        #if os(Linux)
        let resource = Int32(RLIMIT_CORE.rawValue)
        #else
        let resource = RLIMIT_CORE
        #endif
        var limit = rlimit()
        var limited = getrlimit(resource, &limit) == 0
        limit.rlim_cur = 0
        limited = limited && setrlimit(resource, &limit) == 0
        return limited && hawala_set_not_dumpable() == 0
    }()

    /// `count` bytes of guarded, locked, undumpable memory, 16-byte aligned (the end of the
    /// buffer abuts a guard page, so its size is rounded up to keep the start aligned).
    static func allocate(_ count: Int) -> UnsafeMutableRawBufferPointer {
        protectProcess()
        precondition(Sodium.ready, "libsodium failed to initialise")
        let size = (max(count, 1) + 15) & ~15
        guard let pointer = sodium_malloc(size) else { fatalError("out of memory for a secret of \(count) bytes") }
        return UnsafeMutableRawBufferPointer(start: pointer, count: size)
    }

    /// Zeroes and frees what `allocate` gave.
    static func free(_ buffer: UnsafeMutableRawBufferPointer) {
        sodium_free(buffer.baseAddress)  // zeroes before it unmaps
    }
}
