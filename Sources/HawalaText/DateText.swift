import Foundation

extension Date {
    /// ISO 8601, UTC, whole seconds: how dates appear in logs, listings and JSON.
    public var iso8601: String { formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!)) }
}

extension Date {
    /// The date as a person reads it in `timeZone`: "today 14:07", "yesterday 09:12",
    /// "3 Nov 14:07" within a year, else "3 Nov 2025". (Details and exports give `iso8601`.)
    public func relative(now: Date = Date(), timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let time = clock(timeZone: timeZone)
        if calendar.isDate(self, inSameDayAs: now) { return "today \(time)" }
        if let yesterday = calendar.date(byAdding: .day, value: -1, to: now), calendar.isDate(self, inSameDayAs: yesterday) { return "yesterday \(time)" }
        let day = calendar.component(.day, from: self)
        let month = Date.monthAbbreviations[calendar.component(.month, from: self) - 1]
        if let aYearAgo = calendar.date(byAdding: .month, value: -11, to: now), self > aYearAgo, self <= now.addingTimeInterval(86_400) {
            return "\(day) \(month) \(time)"
        }
        return "\(day) \(month) \(calendar.component(.year, from: self))"
    }

    /// The time of day in `timeZone`: "14:07".
    public func clock(timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: self)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    private static let monthAbbreviations = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
