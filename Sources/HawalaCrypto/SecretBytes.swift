internal import CSodium

/// Bytes that must stay secret: mnemonics, seeds, private keys, passwords.
///
/// The storage is libsodium's guarded memory (`SecretMemory`: locked, out of core dumps), wiped
/// and freed when the last reference goes away.
/// Equality runs in constant time. Every textual form — `description`, `debugDescription`,
/// `dump`, string interpolation — is `<redacted>`, so a secret cannot leak through a log line
/// or an error message by accident.
public final class SecretBytes: @unchecked Sendable {
    // Immutable after init, so sharing across threads is safe.
    private let storage: UnsafeMutableRawBufferPointer

    /// The number of bytes held.
    public var count: Int { count_ }

    /// Whether no bytes are held.
    public var isEmpty: Bool { count_ == 0 }

    /// Copies `bytes` into fresh secret storage. The caller remains responsible for its own copy.
    public init<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let array = Array(bytes)
        let buffer = SecretMemory.allocate(array.count)
        array.withUnsafeBytes { source in
            if !source.isEmpty { buffer.copyMemory(from: source) }
        }
        storage = buffer
        count_ = array.count
        var wipe = array
        SecretBytes.wipe(&wipe)
    }

    /// Allocates `count` bytes and lets `initializer` fill them in place, so the secret never
    /// exists outside this storage.
    public init(count: Int, initializer: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        // Filled before any stored property is set: if `initializer` throws, no instance exists,
        // so `deinit` cannot free the buffer a second time.
        let buffer = SecretMemory.allocate(count)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        do {
            try initializer(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
        } catch {
            SecretMemory.free(buffer)
            throw error
        }
        storage = buffer
        count_ = count
    }

    /// Takes the UTF-8 bytes of `string`. Prefer reading secrets straight into `SecretBytes`;
    /// a Swift `String` cannot be wiped.
    public convenience init(utf8 string: String) {
        self.init(Array(string.utf8))
    }

    private let count_: Int

    deinit {
        SecretMemory.free(storage)
    }

    /// Calls `body` with the secret bytes. Do not let the pointer escape.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count_]))
    }

    /// A copy of the bytes as an array. Use sparingly: an array cannot be wiped reliably.
    public func unsafeCopy() -> [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// A new secret made of the bytes in `range`.
    public func slice(_ range: Range<Int>) -> SecretBytes {
        precondition(range.lowerBound >= 0 && range.upperBound <= count_, "slice out of bounds")
        return SecretBytes(count: range.count) { dest in
            withUnsafeBytes { src in
                if !range.isEmpty { dest.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[range])) }
            }
        }
    }

    /// The secret without ASCII spaces, tabs and line ends around it (a pasted token).
    public func trimmingWhitespace() -> SecretBytes {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let (start, end) = withUnsafeBytes { bytes -> (Int, Int) in
            var start = 0, end = bytes.count
            while start < end, isSpace(bytes[start]) { start += 1 }
            while end > start, isSpace(bytes[end - 1]) { end -= 1 }
            return (start, end)
        }
        return slice(start..<end)
    }

    /// Overwrites an array's bytes with zeros (best effort for temporaries).
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
    }
}

extension SecretBytes: Equatable {
    /// Constant-time comparison (the length is not secret).
    public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.count == 0 { return true }
        return lhs.withUnsafeBytes { a in
            rhs.withUnsafeBytes { b in sodium_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }
}

extension SecretBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
