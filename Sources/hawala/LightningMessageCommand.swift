import ArgumentParser
import Foundation
import HawalaLightning
import HawalaText

// `hawala ln sign-message` and `ln verify-message`: a message signed with the wallet's Lightning
// identity key (the Spark SDK's, or devnet's node key), checked by anyone with the public key.

/// The message on standard input: at most `MessageSignature.maximumBytes`, UTF-8, one trailing
/// newline dropped (what `echo` adds).
func readMessage() throws -> String {
    if Input.stdinIsTerminal { Output.error("type the message, then Ctrl-D:") }
    var data = Data()
    while data.count <= MessageSignature.maximumBytes {
        let chunk = FileHandle.standardInput.readData(ofLength: 16 * 1024)
        if chunk.isEmpty { break }
        data.append(chunk)
    }
    guard data.count <= MessageSignature.maximumBytes else { throw CLIError(MessageSignatureError.tooLong(bytes: data.count).description) }
    guard var text = String(data: data, encoding: .utf8) else { throw CLIError("the message is not UTF-8 text") }
    if text.hasSuffix("\r\n") { text.removeLast(2) } else if text.hasSuffix("\n") { text.removeLast() }
    return text
}

struct LightningSignMessage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-message", abstract: "Sign a message with the wallet's Lightning identity key (needs the wallet password).",
        discussion: """
            The message is read from standard input (one trailing newline is dropped), so give the \
            password with --password-file. The signature (ECDSA over SHA-256 of the message, DER, \
            hex) is printed on stdout, the public key on stderr; anyone checks it with \
            `hawala ln verify-message`. JSON: {message, pubkey, signature}.
            """)
    @OptionGroup var options: LightningOptions
    @Flag(help: "JSON output.") var json = false

    func validate() throws {
        if options.password.passwordFile == "-" { throw ValidationError("the message is read from standard input: give the password in a file") }
    }

    func run() async throws {
        let message = try readMessage()
        try MessageSignature.check(message)
        let signed = try await options.open(signing: true).closing { try await $0.backend.signMessage(message) }
        if json { signed.json.print(); return }
        print(signed.signature)
        Output.error("signed by \(signed.publicKey)")
    }
}

struct LightningVerifyMessage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-message", abstract: "Check a signed message (read from standard input) against a public key.",
        discussion: "Needs no wallet. Exit 0 when the signature is valid, 1 when it is not. The signature may be DER or 64-byte compact, in hex.")
    @Option(help: "The signer's public key (compressed, hex).") var pubkey: String
    @Option(help: "The signature (hex).") var signature: String

    func run() throws {
        let message = try readMessage()
        guard try MessageSignature.verify(message, publicKey: pubkey, signature: signature) else {
            throw CLIError("invalid: this signature was not made over this message by \(pubkey.prefix(16))…")
        }
        print("valid: signed by \(pubkey)")
    }
}
