import HawalaWallet

/// The terminal's words for `BackupReminder`.
enum BackupReminderText {
    /// One line naming every wallet that is not backed up, or nil when there is none.
    static func line(_ reminder: BackupReminder) -> String? {
        let wallets = reminder.wallets
        guard let first = wallets.first else { return nil }
        if reminder.isOnlyCurrent {
            return "reminder: wallet \"\(first.name)\" is not backed up; run `hawala wallet verify-backup`"
        }
        if wallets.count == 1 {
            return "reminder: wallet \"\(first.name)\" is not backed up; run `hawala wallet verify-backup --wallet \(quoted(first.name))`"
        }
        let names = wallets.map { "\"\($0.name)\"" }.joined(separator: ", ")
        return "reminder: \(wallets.count) wallets are not backed up: \(names); run `hawala wallet verify-backup --wallet NAME`"
    }

    /// A name as typed in a shell: bare when it is one plain word, else in single quotes.
    static func quoted(_ name: String) -> String {
        name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) ? name : "'" + name.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
