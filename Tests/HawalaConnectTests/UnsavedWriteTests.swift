import Foundation
import HawalaConnect
import HawalaLightning
import HawalaTestSupport
import HawalaText
import HawalaWallet
import Logging
import Synchronization
import Testing

/// Collects what is logged, for one test.
final class LogRecorder: LogHandler, @unchecked Sendable {
    let lines = Mutex<[String]>([])
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        lines.withLock { $0.append("\(event.level) \(event.message) \(event.metadata?["reason"].map { "\($0)" } ?? "")") }
    }
    var logger: Logger { Logger(label: "test") { _ in self } }
}

@Suite("A write that fails where money is counted is said, never swallowed")
struct UnsavedWriteTests {
    @Test func aFailureIsLoggedWithWhatItConcerns() {
        let recorder = LogRecorder()
        struct DiskFull: Error {}
        UnsavedWrite.attempt("the note", logger: recorder.logger) { throw DiskFull() }
        UnsavedWrite.attempt("the other note", logger: recorder.logger) {}
        #expect(recorder.lines.withLock { $0 } == ["error the note was not saved DiskFull()"])
    }

    /// The store refuses to give a reservation back: the payment is still refused as it should
    /// be, the budget stays counted (the safe side), and the log names what was not saved.
    @Test func aBudgetThatCantBeGivenBackStaysCountedAndIsLogged() async throws {
        let pair = try await DevnetPair.make()
        defer { Task { await pair.close() } }
        let (connection, _) = try pair.connection(budget: 10_000, maxPayment: 5_000)
        let invoice = try await pair.invoice(1_000)
        try pair.store.writeTransaction { db in
            try db.execute(sql: "CREATE TRIGGER stuck BEFORE UPDATE ON connectionSpend BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END")
        }
        let recorder = LogRecorder()
        struct No: Error, CustomStringConvertible { var description: String { "not now" } }
        let outcome = await UnsavedWrite.$logger.withValue(recorder.logger) {
            await Result(catching: { () async throws(ConnectionPayer.Failure) -> Payment in
                try await ConnectionPayer.pay(invoice: invoice, amountMsat: nil, requestID: "r1", connection: connection, session: pair.session,
                                              approve: { _ in throw No() })
            })
        }
        #expect(outcome.failure == .notApproved("not now"))
        #expect(try pair.store.spending(of: connection).spent >= Msat(clamping: 1_000_000), "still counted")
        let lines = recorder.lines.withLock { $0 }
        #expect(lines.count == 1 && lines.first?.contains("the budget agent-1 held for payment connect:") == true && lines.first?.contains("disk I/O error") == true,
                "\(lines)")
        #expect(try pair.store.payments(walletID: pair.wallet.id, filter: PaymentFilter(type: .send)).isEmpty, "nothing paid")
    }
}
