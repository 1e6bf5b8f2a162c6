import Foundation

/// How long the app waits without a request before it locks: 1 to 120 minutes, 5 unless the
/// person chose otherwise (saved for the whole store, so every start of the app keeps it).
public struct IdleLock: Sendable, Equatable {
    public static let allowedMinutes = 1...120
    public static let `default` = IdleLock(checked: 5)

    public let minutes: Int
    public var seconds: TimeInterval { TimeInterval(minutes * 60) }

    /// A lock after `minutes`.
    /// - Throws: `OutOfRange` outside `allowedMinutes`.
    public init(minutes: Int) throws(OutOfRange) {
        guard Self.allowedMinutes.contains(minutes) else { throw OutOfRange() }
        self.minutes = minutes
    }

    private init(checked minutes: Int) { self.minutes = minutes }

    public struct OutOfRange: Error, Equatable, CustomStringConvertible {
        public init() {}
        public var description: String { "the app locks after \(IdleLock.allowedMinutes.lowerBound) to \(IdleLock.allowedMinutes.upperBound) minutes without use" }
    }
}

extension WalletStore {
    static let idleLockKey = "app.idleLockMinutes"

    /// The idle lock the person saved, or the default (also when what is saved doesn't read).
    public func idleLock() throws -> IdleLock {
        guard let text = try globalSetting(Self.idleLockKey), let minutes = Int(text), let lock = try? IdleLock(minutes: minutes) else { return .default }
        return lock
    }

    /// Saves the idle lock for every start of the app.
    public func setIdleLock(_ lock: IdleLock) throws {
        try setGlobalSetting(Self.idleLockKey, to: String(lock.minutes))
    }
}
