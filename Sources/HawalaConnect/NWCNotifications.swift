import Foundation
import HawalaLightning
import HawalaNostr
import HawalaText
import HawalaWallet

/// The NIP-47 service's notifier: each wallet's payments, as the backend tells them, recorded and
/// told to the connections that may hear of them.
extension NWCService {
    /// Notifications for a wallet's payments (once its Lightning session is open).
    func listen(walletID: String) async {
        guard state.withLock({ $0.listeners[walletID] == nil }), let session = await lightning(walletID: walletID) else { return }
        let id = session.backend.addEventListener { [weak self] event in
            // Every payment event is recorded (a held payment given back frees its connection's
            // budget); completed ones and held ones are told.
            guard let payment = event.payment else { return }
            Task { await self?.notify(payment, walletID: walletID, session: session) }
        }
        let duplicate = state.withLock { state -> Bool in
            if state.listeners[walletID] != nil { return true }
            state.listeners[walletID] = id
            return false
        }
        if duplicate { session.backend.removeEventListener(id) }
    }

    /// `payment_received` / `payment_sent` to each connection that may see it, and
    /// `hold_invoice_accepted` to the connection whose hold invoice it pays, in NIP-44 (23197)
    /// and NIP-04 (23196).
    func notify(_ payment: Payment, walletID: String, session: LightningSession) async {
        await UnsavedWrite.attempt("payment \(payment.id), told by the backend,", logger: logger) { try await session.lightning.record([payment]) }
        let recorded = (try? store.payment(walletID: walletID, id: payment.id)) ?? payment
        let type: String
        switch recorded.status {
        case .completed: type = recorded.type == .receive ? "payment_received" : "payment_sent"
        case .pending where recorded.isHeld: type = "hold_invoice_accepted"
        default: return
        }
        let served = state.withLock { $0.served.values.filter { $0.connection.walletID == walletID } }
        for s in served where NWCHandler.notifications(for: s.connection).contains(type) {
            // A held payment is told only to the connection whose invoice it pays.
            let mayHear = type == "hold_invoice_accepted" ? recorded.connection == s.connection.name : s.connection.maySee(recorded)
            guard mayHear else { continue }
            let json = JSONValue.object([("notification_type", .string(type)), ("notification", NWCHandler.transaction(recorded, now: options.now()))]).compact
            let sessions = relays.sessions(s.connection.relays)
            for (kind, scheme) in [(NostrEvent.Kind.walletNotification, "nip44_v2"), (NostrEvent.Kind.walletNotificationNIP04, "nip04")] {
                guard let content = encrypt(json, scheme: scheme, served: s),
                      let event = try? NostrEvent.signed(kind: kind, tags: [["p", s.connection.clientPublicKey]], content: content, by: s.keys, at: options.now()) else { continue }
                for relay in sessions { relay.send(event) }
            }
        }
    }
}
