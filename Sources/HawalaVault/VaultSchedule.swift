import Foundation

/// When scheduled backups are due, and which backups retention removes. Pure functions of
/// dates in UTC, so they are tested across month ends, leap days and year ends.
public enum VaultSchedule {
    private static var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    /// The next backup time after `now`, at `backupTimeUtc`; nil when automatic backups are off.
    /// - Without a backup yet: the next `backupTimeUtc`, whatever the frequency.
    /// - daily: the first `backupTimeUtc` at least 12 hours after the last backup.
    /// - weekly: the last backup's weekday, 1, 2… weeks later.
    /// - monthly: the last backup's day of the month, 1, 2… months later, clamped to shorter
    ///   months (the 30th runs on Feb 28 or 29); a backup on a month's last day keeps the last
    ///   day (Jan 31 → Feb 29 → Mar 31 → Apr 30), so the day never drifts down.
    /// Slots already past (the machine was off) are skipped to the first one after `now`.
    public static func nextRun(settings: BackupSettings, lastRun: Date?, now: Date) -> Date? {
        guard settings.autoBackupEnabled, let minutes = BackupSettings.minutes(settings.backupTimeUtc) else { return nil }
        let calendar = utc
        let offset = Double(minutes * 60)
        func slot(onDayOf date: Date) -> Date { calendar.startOfDay(for: date).addingTimeInterval(offset) }
        guard let lastRun else {
            var candidate = slot(onDayOf: now)
            if candidate <= now { candidate += 86_400 }
            return candidate
        }
        switch settings.backupFrequency {
        case .daily:
            let earliest = max(now, lastRun.addingTimeInterval(12 * 3600))
            var candidate = slot(onDayOf: earliest)
            while candidate <= earliest { candidate += 86_400 }
            return candidate
        case .weekly:
            var candidate = slot(onDayOf: lastRun) + 7 * 86_400
            while candidate <= now { candidate += 7 * 86_400 }
            return candidate
        case .monthly:
            let parts = calendar.dateComponents([.year, .month, .day], from: lastRun)
            let (year, month, day) = (parts.year!, parts.month!, parts.day!)
            func days(_ y: Int, _ m: Int) -> Int {
                calendar.range(of: .day, in: .month, for: calendar.date(from: DateComponents(year: y, month: m, day: 1))!)!.count
            }
            let keepsLastDay = day == days(year, month)
            var k = 1
            while true {
                let index = year * 12 + (month - 1) + k
                let (y, m) = (index / 12, index % 12 + 1)
                let d = keepsLastDay ? days(y, m) : min(day, days(y, m))
                let candidate = calendar.date(from: DateComponents(year: y, month: m, day: d))!.addingTimeInterval(offset)
                if candidate > now { return candidate }
                k += 1
            }
        }
    }

    /// Backups received before this are past retention.
    public static func retentionCutoff(retentionDays: Int, now: Date) -> Date {
        now.addingTimeInterval(-Double(retentionDays) * 86_400)
    }

    /// The backups retention deletes: complete or not, older than `retentionDays` by server
    /// receipt time — but never the newest complete backup, so a user who stopped backing up
    /// keeps one.
    public static func expired(_ backups: [Backup], retentionDays: Int, now: Date) -> [Backup] {
        let cutoff = retentionCutoff(retentionDays: retentionDays, now: now)
        let newestComplete = backups.filter { $0.status == .complete }.max { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        return backups.filter { $0.createdAt < cutoff && $0.id != newestComplete?.id }
    }
}
