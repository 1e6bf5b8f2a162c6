import HawalaText

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

extension Chain: JSONRepresentable {
    /// `{name, displayName, network, path, curve, watchOnly}` (`hawala chains --json`).
    public var json: JSONValue {
        .object([("name", .string(name)), ("displayName", .string(displayName)), ("network", .string(network.rawValue)),
                 ("path", .string(pathTemplate)), ("curve", .string("\(curve)")), ("watchOnly", .bool(isBitcoinFamily))])
    }
}
