import Foundation
import HawalaKeys

/// JSON written with keys in a fixed, documented order (Foundation's encoder on Linux does not
/// keep declaration order). Scripts depend on these shapes.
indirect enum JSONValue {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    func render(indent: Int = 0) -> String {
        let pad = String(repeating: "  ", count: indent)
        let inner = String(repeating: "  ", count: indent + 1)
        switch self {
        case .string(let s): return JSONValue.quote(s)
        case .int(let i): return String(i)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array(let items):
            if items.isEmpty { return "[]" }
            return "[\n" + items.map { inner + $0.render(indent: indent + 1) }.joined(separator: ",\n") + "\n" + pad + "]"
        case .object(let fields):
            if fields.isEmpty { return "{}" }
            return "{\n" + fields.map { inner + JSONValue.quote($0.0) + ": " + $0.1.render(indent: indent + 1) }.joined(separator: ",\n") + "\n" + pad + "}"
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// On one line, no spaces: one object per line in a stream (`ln watch --json`).
    var compact: String {
        switch self {
        case .string, .int, .bool, .null: return render()
        case .array(let items): return "[" + items.map(\.compact).joined(separator: ",") + "]"
        case .object(let fields): return "{" + fields.map { JSONValue.quote($0.0) + ":" + $0.1.compact }.joined(separator: ",") + "}"
        }
    }

    /// Prints on stdout.
    func print() { Swift.print(render()) }
}

extension DerivedAddress {
    var json: JSONValue {
        .object([("chain", .string(chain)), ("path", .string(path)), ("address", .string(address)), ("publicKey", .string(publicKey))])
    }
}

extension AccountExport {
    var json: JSONValue {
        .object([("chain", .string(chain)), ("path", .string(path)), ("xpub", .string(xpub)), ("descriptor", .string(descriptor)), ("fingerprint", .string(fingerprint)),
                 ("keyOrigin", .string(keyOrigin)), ("accountKey", .string(accountKey)), ("changeDescriptor", .string(changeDescriptor)),
                 ("multipathDescriptor", .string(multipathDescriptor))])
    }
}
