import Foundation
import HawalaBackup
import HawalaCrypto
import HawalaKeys
import HawalaLightning
import HawalaOnChain
import HawalaText
import HawalaWallet
import HTTPTypes

/// The browser's sessions with the app, kept in memory only (a restart logs everyone out).
///
/// A session starts *locked* — from the one-time token `hawala app` printed, or after a lock —
/// and is *unlocked* by the wallet password, which is the login: a new session id then, so an
/// id seen before the login is worth nothing after it. After `idleLock` without a request an
/// unlocked session locks again (the keyring is dropped).
actor AppSessions {
    struct Session: Sendable {
        let id: String
        /// The form token every state change must carry (CSRF).
        let csrf: String
        var keyring: Keyring?
        var lastSeen: Date
        /// How long the session may stay idle before it locks (the setting when it was read).
        var idleLock: TimeInterval = 0
        /// The browser's time zone (a cookie the page's script sets); the machine's without it.
        var timeZone: TimeZone = .current
        /// A form the lock interrupted, to show filled again after the unlock (never a secret).
        var interrupted: InterruptedForm?
        /// A sealed backup file just made, downloadable from its confirmation page until the
        /// session locks.
        var download: ReadyFile?
        /// The words being backed up or shown (held only while the page needs them).
        var backup: BackupTask?
        /// A recovery in progress.
        var recovery: RecoveryFlow?
        /// A Lightning payment previewed and waiting for the password.
        var send: PendingSend?
        /// A withdrawal priced (each speed), waiting for the speed and the password.
        var onChain: PendingOnChain?
        /// A Bitcoin or Litecoin payment of the wallet's own coins, previewed, waiting for the password.
        var chainPlan: PendingChainPlan?
        /// An exit planned and shown, waiting for the password.
        var exitPlan: PendingExit?
        /// A backup file decrypted and previewed, waiting for "Import" (it holds the words).
        var importing: ImportTask?
        /// SLIP-39 shares taken so far (pasted over one or more forms).
        var shareEntry: ShareEntryFlow?
        /// A secret recovered from SLIP-39 shares, waiting for the person to recognise its addresses.
        var sharesRecovery: SharesRecovery?
        /// The pages that answered this session's forms, newest last: each POST redirects to its
        /// answer (`/answer/ID`), which a reload or the Back button shows again.
        var answers: [Answer] = []
        var isUnlocked: Bool { keyring != nil }

        /// Drops the keyring and every secret a flow holds.
        mutating func forgetSecrets() {
            keyring = nil
            backup = nil
            recovery = nil
            importing = nil
            shareEntry = nil
            sharesRecovery = nil
            download = nil
            answers = answers.filter(\.survivesTheLock)
        }

        /// What a lock keeps for after the unlock: a payment waiting for its password (no
        /// secret: the password is asked again) and its confirmation page, so nothing typed is
        /// lost to the lock.
        mutating func keepAcrossTheLock(from old: Session) {
            send = old.send
            answers = old.answers.filter(\.survivesTheLock)
        }
    }

    /// A page that answered a form, kept for its reloads until `keptUntil` (or the lock).
    struct Answer: Sendable {
        let id: String
        let status: HTTPResponse.Status
        let template: String
        let page: Page
        let keptUntil: Date

        /// A payment's confirmation comes back after a lock (shown only once unlocked).
        var survivesTheLock: Bool { template == "send" }
    }

    /// How many answers a session keeps.
    static let answersKept = 32

    /// Keeps `answer` for session `id` (the oldest goes past `answersKept`).
    func keep(_ answer: Answer, for id: String) -> Bool {
        guard sessions[id] != nil else { return false }
        sessions[id]?.answers.removeAll { $0.keptUntil < now() }
        sessions[id]?.answers.append(answer)
        if let count = sessions[id]?.answers.count, count > Self.answersKept { sessions[id]?.answers.removeFirst(count - Self.answersKept) }
        return true
    }

    /// Session `id`'s answer `answerID`, while it is kept.
    func answer(_ answerID: String, for id: String) -> Answer? {
        sessions[id]?.answers.first { $0.id == answerID && $0.keptUntil >= now() }
    }

    /// A form sent while the session was locked: the page it belongs to, and its plain fields
    /// (`InterruptedForm.kept` only: never a password, a word or a passphrase).
    struct InterruptedForm: Sendable {
        let page: String
        let fields: [String: String]

        /// The fields worth keeping across a lock, none of them secret.
        static let kept: Set<String> = ["input", "amount", "comment", "description", "name", "words", "network", "all",
                                         "budget", "renewal", "maxPayment", "expiry", "relays", "may-pay", "may-receive", "may-balance", "may-history", "for-nwc", "for-mcp"]

        func value(_ name: String) -> String { fields[name] ?? "" }
    }

    /// A file made for the person to download (a sealed .hawala file: nothing in the clear).
    struct ReadyFile: Sendable {
        let name: String
        let bytes: Data
        /// The wallets it holds (nil: every wallet), recorded as backed up to a file once downloaded.
        var wallets: [String]? = nil
    }

    /// A decrypted backup's import plan and the uploaded file's name.
    struct ImportTask: Sendable {
        let plan: BackupImportPlan
        let source: String
    }

    /// The ways a secret combined from shares can be read, on the network chosen.
    struct SharesRecovery: Sendable {
        let readings: [ShamirReading]
        let network: Network
    }

    /// A payment prepared (amount and fee known, nothing sent) for one wallet.
    struct PendingExit: Sendable {
        let walletID: String
        let plan: ExitPlan
    }

    struct PendingChainPlan: Sendable {
        let walletID: String
        let plan: SendPlan
        /// Named by the review form: the password sends the plan that page showed, never another.
        let id: String
    }

    struct PendingOnChain: Sendable {
        let walletID: String
        let quote: OnChainQuote
        /// The idempotency key the withdrawal is sent under, chosen with the preview.
        let key: String
    }

    struct PendingSend: Sendable {
        let walletID: String
        let payment: PreparedPayment
        /// What the person pasted, shown again on the confirmation page.
        let input: String
        /// Where it is paid, as the CLI's preview says it too: "devnet (… not the Lightning network)".
        let network: String
    }

    /// Words being written down and checked: a wallet's (its seed backup) or a credential
    /// backup's new recovery phrase, with the flow and when the words stop being shown.
    struct BackupTask: Sendable {
        enum Subject: Sendable {
            case wallet(WalletSummary)
            /// A credential sealed under `phrase` and uploaded to the vault once the quiz passes.
            case vaultCredential(SecretBytes, phrase: Mnemonic)
        }
        let subject: Subject
        var flow: SeedBackupFlow
        /// Past this, the words are hidden: the flow is dropped and the password needed again.
        var wordsHideAt: Date
    }

    /// Wrong wallet passwords, wherever typed (the library's one limit).
    private var tries = PasswordTries(allowed: AppSessions.failuresAllowed, window: AppSessions.failureWindow)
    private var token: String?
    private var sessions: [String: Session] = [:]
    private var idleLock: TimeInterval
    private let now: @Sendable () -> Date
    /// Wrong passwords allowed within `failureWindow` before unlocking is refused for a while.
    static let failuresAllowed = 5
    static let failureWindow: TimeInterval = 300

    init(token: String, idleLock: TimeInterval, now: @escaping @Sendable () -> Date) {
        self.token = token
        self.idleLock = idleLock
        self.now = now
    }

    /// A random 256-bit value, hex: the one-time token, session ids, CSRF tokens.
    static func randomToken() -> String {
        hexString(SystemRandom.bytes(32))
    }

    /// Exchanges the one-time token for a locked session; the token works once.
    func exchange(token candidate: String) -> Session? {
        guard let token, SecretBytes(utf8: candidate) == SecretBytes(utf8: token) else { return nil }
        self.token = nil
        return newSession(keyring: nil)
    }

    /// The session with this id, locked again if it was idle too long; `timeZone`, the browser's
    /// zone when it said.
    func session(_ id: String?, timeZone: TimeZone? = nil) -> Session? {
        guard let id, var session = sessions[id] else { return nil }
        let time = now()
        if time.timeIntervalSince(session.lastSeen) > idleLock { session.forgetSecrets() }
        session.lastSeen = time
        session.idleLock = idleLock
        if let timeZone { session.timeZone = timeZone }
        sessions[id] = session
        return session
    }

    /// The session with this id as it stands, without counting this as a request (an event
    /// stream must not keep a session awake).
    func peek(_ id: String?) -> Session? {
        guard let id, var session = sessions[id] else { return nil }
        if now().timeIntervalSince(session.lastSeen) > idleLock { session.forgetSecrets() }
        return session
    }

    /// Seconds before session `id` locks (0 once locked), without counting this as a request.
    func secondsLeft(_ id: String?) -> Int {
        guard let id, let session = sessions[id], session.isUnlocked else { return 0 }
        return max(0, Int((idleLock - now().timeIntervalSince(session.lastSeen)).rounded()))
    }

    /// Drops the keyring of every session idle longer than the idle lock: run periodically, so a
    /// key does not stay in memory until the browser's next request. Returns how many locked.
    @discardableResult
    func lockIdle() -> Int {
        let time = now()
        var locked = 0
        for (id, session) in sessions where time.timeIntervalSince(session.lastSeen) > idleLock {
            if session.isUnlocked { locked += 1 }
            sessions[id]?.forgetSecrets()
        }
        return locked
    }

    /// The ids of the sessions unlocked and not idle now.
    func unlockedIDs() -> Set<String> {
        let time = now()
        return Set(sessions.values.filter { $0.isUnlocked && time.timeIntervalSince($0.lastSeen) <= idleLock }.map(\.id))
    }

    /// Starts a password try (counted now, before the key derivation, so tries sent at once
    /// can't all be evaluated), or says until when to wait; with the limit, for its words.
    func startPasswordTry() -> (PasswordTries.Start, PasswordTries) {
        let start = tries.start(now: now())
        return (start, tries)
    }

    /// The password of `passwordTry` was right: it no longer counts.
    func passwordWasRight(_ passwordTry: PasswordTries.PasswordTry) { tries.wasRight(passwordTry) }

    /// The login: the locked session `id` is replaced by an unlocked one with a new id; the
    /// wrong tries before it are forgotten.
    func unlock(_ id: String, keyring: Keyring) -> Session? {
        guard let old = sessions.removeValue(forKey: id) else { return nil }
        tries.forgetAll()
        var session = newSession(keyring: keyring)
        session.timeZone = old.timeZone
        session.interrupted = old.interrupted
        session.keepAcrossTheLock(from: old)
        sessions[session.id] = session
        return session
    }

    /// The form the lock interrupted, if it belongs to `page`: given once.
    func takeInterrupted(_ id: String, page: String) -> InterruptedForm? {
        guard let form = sessions[id]?.interrupted, form.page == page else { return nil }
        sessions[id]?.interrupted = nil
        return form
    }

    /// A fresh one-time token for the sign-in link (the previous one, if unused, stops working).
    func newToken() -> String {
        let fresh = Self.randomToken()
        token = fresh
        return fresh
    }

    /// Changes session `id` with `body`; nil when there is no such session.
    func update<T: Sendable>(_ id: String, _ body: @Sendable (inout Session) throws -> T) rethrows -> T? {
        guard var session = sessions[id] else { return nil }
        let result = try body(&session)
        sessions[id] = session
        return result
    }

    /// Whether session `id` is still unlocked, without counting this as a request (an open event
    /// stream must not keep a session awake).
    func isStillUnlocked(_ id: String) -> Bool {
        guard let session = sessions[id], session.isUnlocked else { return false }
        return now().timeIntervalSince(session.lastSeen) <= idleLock
    }

    /// How long an unlocked session may stay idle (a setting, changed while the app runs).
    var idleLockSeconds: TimeInterval { idleLock }

    func setIdleLock(_ seconds: TimeInterval) { idleLock = seconds }

    /// The current time, from the app's clock.
    func time() -> Date { now() }

    /// The lock: the session and its keyring are gone; the browser gets a new locked session
    /// (the password opens it again, no new token needed).
    func lock(_ id: String) -> Session {
        let old = sessions.removeValue(forKey: id)
        var session = newSession(keyring: nil)
        session.timeZone = old?.timeZone ?? .current
        if let old { session.keepAcrossTheLock(from: old) }
        sessions[session.id] = session
        return session
    }

    private func newSession(keyring: Keyring?) -> Session {
        let session = Session(id: Self.randomToken(), csrf: Self.randomToken(), keyring: keyring, lastSeen: now())
        sessions[session.id] = session
        return session
    }
}
