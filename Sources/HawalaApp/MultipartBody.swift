import Foundation
import HawalaCrypto

/// A `multipart/form-data` body (RFC 7578): a form with a file. Each part keeps its bytes
/// (a backup file, a password) until asked for; every part is wiped when the body is released.
final class MultipartBody {
    struct Part {
        let name: String
        let filename: String?
        var bytes: [UInt8]
    }

    private(set) var parts: [Part] = []

    /// Nil when the content type names no boundary or the body is not multipart.
    init?(_ body: [UInt8], contentType: String) {
        guard contentType.lowercased().hasPrefix("multipart/form-data"), let boundary = Self.boundary(contentType) else { return nil }
        // Every delimiter is CRLF "--" boundary; the body's first one has no CRLF before it.
        let delimiter = Array("\r\n--\(boundary)".utf8)
        var data = [13, 10] + body
        defer { SecretBytes.wipe(&data) }
        var starts: [Int] = []
        var i = 0
        while i + delimiter.count <= data.count {
            if data[i] == delimiter[0], data[i..<(i + delimiter.count)].elementsEqual(delimiter) {
                starts.append(i)
                i += delimiter.count
            } else {
                i += 1
            }
        }
        guard starts.count >= 2 else { return nil }
        for (start, end) in zip(starts, starts.dropFirst()) {
            var part = data[(start + delimiter.count)..<end]
            guard part.starts(with: [13, 10]) else { return nil }
            part = part.dropFirst(2)
            guard let split = Self.headerEnd(part) else { return nil }
            let headers = String(decoding: part[part.startIndex..<split], as: UTF8.self)
            guard let (name, filename) = Self.disposition(headers) else { continue }
            parts.append(Part(name: name, filename: filename, bytes: Array(part[(split + 4)...])))
        }
    }

    deinit {
        for i in parts.indices { SecretBytes.wipe(&parts[i].bytes) }
    }

    func part(_ name: String) -> Part? { parts.first { $0.name == name } }
    func text(_ name: String) -> String? { part(name).flatMap { String(bytes: $0.bytes, encoding: .utf8) } }
    func secret(_ name: String) -> SecretBytes? { part(name).map { SecretBytes($0.bytes) } }

    static func boundary(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            let value = pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2 ? String(pair[1].dropFirst().dropLast()) : pair[1]
            return (1...70).contains(value.count) ? value : nil
        }
        return nil
    }

    private static func headerEnd(_ part: ArraySlice<UInt8>) -> Int? {
        var i = part.startIndex
        while i + 3 < part.endIndex {
            if part[i] == 13, part[i + 1] == 10, part[i + 2] == 13, part[i + 3] == 10 { return i }
            i += 1
        }
        return nil
    }

    /// The part's field name and file name from its Content-Disposition header.
    private static func disposition(_ headers: String) -> (String, String?)? {
        guard let line = headers.components(separatedBy: "\r\n").first(where: { $0.lowercased().hasPrefix("content-disposition:") }) else { return nil }
        var name: String?, filename: String?
        for parameter in line.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            let value = pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2 ? String(pair[1].dropFirst().dropLast()) : pair[1]
            switch pair[0].lowercased() {
            case "name": name = value
            case "filename": filename = value
            default: break
            }
        }
        return name.map { ($0, filename) }
    }
}
