import Foundation

/// A JSON document with its keys in a fixed, documented order: the one shape per concept that
/// every front end prints (the CLI's `--json`, the app's API). Foundation's encoder on Linux
/// neither keeps declaration order nor writes `null` for an absent optional; scripts depend on
/// both (docs/decisions/0007).
public indirect enum JSONValue: Sendable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    public func render(indent: Int = 0) -> String {
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

    public static func quote(_ s: String) -> String {
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
    public var compact: String {
        switch self {
        case .string, .int, .bool, .null: return render()
        case .array(let items): return "[" + items.map(\.compact).joined(separator: ",") + "]"
        case .object(let fields): return "{" + fields.map { JSONValue.quote($0.0) + ":" + $0.1.compact }.joined(separator: ",") + "}"
        }
    }

    /// Prints on stdout.
    public func print() { Swift.print(render()) }
}

extension JSONValue {
    /// A string, or `null`.
    public static func nullable(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
    /// An ISO 8601 date, or `null`.
    public static func date(_ date: Date?) -> JSONValue { date.map { .string($0.iso8601) } ?? .null }
}

/// A value with one documented JSON shape.
public protocol JSONRepresentable {
    var json: JSONValue { get }
}
