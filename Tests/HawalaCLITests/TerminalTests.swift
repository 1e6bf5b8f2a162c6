import Foundation
import Testing

@Suite("At a terminal")
struct TerminalTests {
    /// The mnemonic typed at the prompt is not echoed, and the result is the same as from stdin.
    @Test func mnemonicPromptHidesInput() throws {
        let session = try PTYSession(["derive", "--chain", "bitcoin"])
        try session.expect("Mnemonic (input hidden): ")
        session.send(abandonAbout)
        let status = try session.wait()
        #expect(status == 0, "screen: \(session.screen)")
        #expect(session.screen.contains("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"))
        #expect(!session.screen.contains("abandon"), "the mnemonic was echoed: \(session.screen)")
    }

    @Test func wrongMnemonicAtThePromptIsOneLine() throws {
        let session = try PTYSession(["derive", "--chain", "bitcoin"])
        try session.expect("Mnemonic (input hidden): ")
        session.send("abandon abandon abandn")
        #expect(try session.wait() == 1)
        #expect(!session.screen.contains("abandn\r\n"), "echoed: \(session.screen)")
    }
}
