import Foundation
import HawalaText

/// Wrong wallet passwords, counted one way by every face. Every place the password is typed —
/// unlocking, confirming a payment, exporting a backup — is a guess at the same key, so every
/// wrong one counts toward the same limit (a session left unlocked is no way around it). A try
/// counts as it starts, before the key derivation, so tries sent at once can't all run; a right
/// password takes its own try back. A person is told how many tries are left before the wait,
/// and then until when.
public struct PasswordTries: Sendable {
    /// What a face may do with a password typed now.
    public enum Start: Sendable, Equatable {
        /// Check it: `left` more may be tried after this one before the wait.
        case check(PasswordTry, left: Int)
        /// Too many wrong ones: no password is checked before `until`.
        case wait(until: Date)
    }

    /// One password being checked.
    public struct PasswordTry: Sendable, Equatable {
        fileprivate let id: UInt64
    }

    /// Tries allowed within `window` before the wait.
    public let allowed: Int
    /// How long a wrong try counts.
    public let window: TimeInterval
    private var tries: [(id: UInt64, at: Date)] = []
    private var nextID: UInt64 = 0

    /// The app's: 5 tries within 5 minutes.
    public init(allowed: Int = 5, window: TimeInterval = 300) {
        self.allowed = allowed
        self.window = window
    }

    /// Starts a try at `now`, or says how long to wait.
    public mutating func start(now: Date) -> Start {
        tries.removeAll { now.timeIntervalSince($0.at) >= window }
        guard tries.count < allowed else { return .wait(until: waitEnds(now: now)) }
        nextID += 1
        tries.append((nextID, now))
        return .check(PasswordTry(id: nextID), left: allowed - tries.count)
    }

    /// The password of `passwordTry` was right: it no longer counts.
    public mutating func wasRight(_ passwordTry: PasswordTry) { tries.removeAll { $0.id == passwordTry.id } }

    /// A right password unlocked: every wrong try before it is forgiven.
    public mutating func forgetAll() { tries.removeAll() }

    /// When the oldest counted try stops counting (a new try may start then).
    public func waitEnds(now: Date) -> Date {
        tries.map { $0.at.addingTimeInterval(window) }.min() ?? now
    }

    /// What a person reads after a wrong password with `left` tries left.
    public func wrongWords(left: Int) -> String {
        switch left {
        case 0: "Wrong password. That was the last try: the next one must wait \(Self.minutes(window))."
        case 1: "Wrong password. 1 more try before a wait of \(Self.minutes(window))."
        default: "Wrong password. \(left) more tries before a wait of \(Self.minutes(window))."
        }
    }

    /// What a person reads while tries must wait: until when, in their time zone.
    public static func waitWords(until: Date, now: Date, timeZone: TimeZone) -> String {
        let seconds = max(1, Int(until.timeIntervalSince(now).rounded(.up)))
        let left = seconds < 60 ? "\(seconds) second\(seconds == 1 ? "" : "s")" : minutes(TimeInterval(seconds))
        return "Too many wrong passwords. Try again at \(until.clock(timeZone: timeZone)) (in \(left)); until then no password is checked."
    }

    static func minutes(_ interval: TimeInterval) -> String {
        let minutes = max(1, Int((interval / 60).rounded(.up)))
        return "\(minutes) minute\(minutes == 1 ? "" : "s")"
    }
}
