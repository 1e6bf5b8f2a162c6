import HawalaLightning

/// One Lightning session per unlocked app session: the wallet's backend is opened once — Spark
/// connects once, not on every page — and closed when the app session locks (by hand or when
/// idle), its wallet or Lightning settings change, or the app stops. The seed a connected backend
/// holds leaves memory with the keyring (decision 0009).
actor LightningSessionCache {
    private struct Entry {
        /// The wallet and the settings it was opened with (`key(wallet:settings:)`).
        let key: String
        let opening: Task<LightningSession, Error>
    }

    private var entries: [String: Entry] = [:]
    /// How many sessions were opened since the start (for tests).
    private(set) var opened = 0

    /// What a session depends on: a different wallet, backend, currency or rates source opens a
    /// new one (the node id, saved by the first connection, does not count).
    static func key(walletID: String, settings: LightningSettings) -> String {
        [walletID, settings.backend ?? "", settings.fiat ?? "", settings.rates ?? "", settings.maxClaimFee.saved].joined(separator: "\n")
    }

    /// The session of app session `id` for `key`, opened by `open` when there is none (or it was
    /// for another key: that one is closed). Concurrent requests wait for the same opening; a
    /// failed opening is not kept.
    func session(for id: String, key: String, open: @escaping @Sendable () async throws -> LightningSession) async throws -> LightningSession {
        let opening: Task<LightningSession, Error>
        if let entry = entries[id], entry.key == key {
            opening = entry.opening
        } else {
            // The one it replaces is closed first (Spark keeps one connection to a storage).
            let stale = entries[id]
            opening = Task {
                if let stale { await (try? await stale.opening.value)?.close() }
                return try await open()
            }
            entries[id] = Entry(key: key, opening: opening)
            opened += 1
        }
        do {
            return try await opening.value
        } catch {
            if entries[id]?.opening == opening { entries[id] = nil }
            throw error
        }
    }

    /// Closes the session of app session `id`, if it has one.
    func close(_ id: String) async {
        guard let entry = entries.removeValue(forKey: id) else { return }
        await (try? await entry.opening.value)?.close()
    }

    /// Closes every session whose app session is not in `unlocked` (locked, idle or gone).
    func keep(only unlocked: Set<String>) async {
        for id in entries.keys where !unlocked.contains(id) { await close(id) }
    }

    /// Closes them all (the app stops).
    func closeAll() async {
        for id in entries.keys { await close(id) }
    }

    /// How many are open now (for tests).
    var count: Int { entries.count }
}
