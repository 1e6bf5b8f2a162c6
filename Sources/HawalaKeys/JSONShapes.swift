import HawalaFormat

extension DerivedAddress: JSONRepresentable {
    /// `{chain, path, address, publicKey}` (`hawala derive --json`).
    public var json: JSONValue {
        .object([("chain", .string(chain)), ("path", .string(path)), ("address", .string(address)), ("publicKey", .string(publicKey))])
    }
}

extension AccountExport: JSONRepresentable {
    /// `hawala derive --account --json`.
    public var json: JSONValue {
        .object([("chain", .string(chain)), ("path", .string(path)), ("xpub", .string(xpub)), ("descriptor", .string(descriptor)), ("fingerprint", .string(fingerprint)),
                 ("keyOrigin", .string(keyOrigin)), ("accountKey", .string(accountKey)), ("changeDescriptor", .string(changeDescriptor)),
                 ("multipathDescriptor", .string(multipathDescriptor))])
    }
}
