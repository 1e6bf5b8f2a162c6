import Foundation

extension Date {
    /// ISO 8601, UTC, whole seconds: how dates appear in logs, listings and JSON.
    public var iso8601: String { formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!)) }
}
