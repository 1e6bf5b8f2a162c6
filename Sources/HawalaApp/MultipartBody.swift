import Foundation
import HawalaCrypto
import NIOCore

/// A `multipart/form-data` body (RFC 7578) read as it arrives: its one file part is written to a
/// private temporary file, its other fields (a password, a form token) are kept in memory, each
/// at most `fieldLimit` bytes, and wiped when the upload is released, which also removes the
/// file. So an upload costs a few chunks of memory whatever the file's size.
final class MultipartUpload {
    /// The fields other than the file, by name.
    private var fields: [String: [UInt8]] = [:]
    /// The file part: where it was written, its size and the name the browser gave it.
    private(set) var file: (url: URL, size: Int, filename: String?)?
    private let folder: URL

    /// Why a body was not taken.
    enum Refusal: Error, Equatable {
        /// Not multipart/form-data, or not well formed.
        case malformed
        /// The file is over `fileLimit`, or a field over `fieldLimit`.
        case tooLarge
        /// The temporary file could not be written (the system's reason).
        case storage(String)
    }

    private init(folder: URL) { self.folder = folder }

    deinit {
        for name in fields.keys { SecretBytes.wipe(&fields[name]!) }
        try? FileManager.default.removeItem(at: folder)
    }

    func text(_ name: String) -> String? { fields[name].flatMap { String(bytes: $0, encoding: .utf8) } }
    func secret(_ name: String) -> SecretBytes? { fields[name].map { SecretBytes($0) } }

    /// Reads `body` (of `contentType`), writing the part named `fileField` to a new folder of
    /// mode 0700 under `directory`.
    static func read<Body: AsyncSequence>(_ body: Body, contentType: String, fileField: String, fileLimit: Int, fieldLimit: Int = 64 << 10,
                                          directory: URL = FileManager.default.temporaryDirectory) async throws -> MultipartUpload
    where Body.Element == ByteBuffer {
        guard contentType.lowercased().hasPrefix("multipart/form-data"), let boundary = boundary(contentType) else { throw Refusal.malformed }
        let folder = directory.appendingPathComponent("hawala-upload-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw Refusal.storage("\(error)")
        }
        let upload = MultipartUpload(folder: folder)
        var parser = Parser(boundary: boundary, upload: upload, fileField: fileField, fileLimit: fileLimit, fieldLimit: fieldLimit)
        defer { parser.close() }
        for try await chunk in body {
            try parser.feed(chunk.readableBytesView)
            if parser.finished { break }
        }
        guard parser.finished else { throw Refusal.malformed }
        return upload
    }

    /// The boundary named by a `multipart/form-data` content type.
    static func boundary(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            let value = pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2 ? String(pair[1].dropFirst().dropLast()) : pair[1]
            return (1...70).contains(value.count) ? value : nil
        }
        return nil
    }

    /// The state machine reading parts: a delimiter ("\r\n--" boundary), the part's headers up
    /// to an empty line, its content up to the next delimiter; "--" after a delimiter ends it.
    private struct Parser {
        let delimiter: [UInt8]
        unowned let upload: MultipartUpload
        let fileField: String
        let fileLimit: Int
        let fieldLimit: Int
        /// Bytes received and not yet used (at most a delimiter's length of a part's content).
        var pending: [UInt8] = [13, 10]  // the first delimiter has no CRLF before it
        var state = State.preamble
        var finished: Bool { if case .done = state { true } else { false } }

        enum State {
            case preamble
            case afterDelimiter
            case headers
            case field(name: String, bytes: [UInt8])
            case file(FileHandle, url: URL, size: Int, filename: String?)
            case skipped
            case done
        }

        init(boundary: String, upload: MultipartUpload, fileField: String, fileLimit: Int, fieldLimit: Int) {
            delimiter = Array("\r\n--\(boundary)".utf8)
            self.upload = upload
            self.fileField = fileField
            self.fileLimit = fileLimit
            self.fieldLimit = fieldLimit
        }

        mutating func feed(_ bytes: ByteBufferView) throws {
            pending.append(contentsOf: bytes)
            while try step() {}
        }

        /// One move of the state machine; false when more bytes are needed.
        mutating func step() throws -> Bool {
            switch state {
            case .preamble:
                guard let at = find(delimiter) else {
                    keepTail(max(0, pending.count - delimiter.count))
                    return false
                }
                pending.removeFirst(at + delimiter.count)
                state = .afterDelimiter
                return true
            case .afterDelimiter:
                guard pending.count >= 2 else { return false }
                if pending[0] == 45, pending[1] == 45 {  // "--": the last part ended
                    state = .done
                    return false
                }
                guard pending[0] == 13, pending[1] == 10 else { throw Refusal.malformed }
                pending.removeFirst(2)
                state = .headers
                return true
            case .headers:
                guard let end = find([13, 10, 13, 10]) else {
                    guard pending.count <= 8192 else { throw Refusal.malformed }
                    return false
                }
                let headers = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeFirst(end + 4)
                state = try startPart(headers)
                return true
            case .field, .file, .skipped:
                if let at = find(delimiter) {
                    try take(at)
                    pending.removeFirst(delimiter.count)
                    try endPart()
                    state = .afterDelimiter
                    return true
                }
                // All but what could be the start of a delimiter is the part's.
                let safe = max(0, pending.count - delimiter.count + 1)
                try take(safe)
                return false
            case .done:
                pending.removeAll()
                return false
            }
        }

        /// The state for a part with these headers.
        mutating func startPart(_ headers: String) throws -> State {
            guard let (name, filename) = MultipartUpload.disposition(headers) else { return .skipped }
            guard name == fileField else { return upload.fields[name] == nil ? .field(name: name, bytes: []) : .skipped }
            guard upload.file == nil else { return .skipped }
            let url = upload.folder.appendingPathComponent("file")
            guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]),
                  let handle = FileHandle(forWritingAtPath: url.path) else { throw Refusal.storage("cannot create \(url.path)") }
            return .file(handle, url: url, size: 0, filename: filename)
        }

        /// Moves the first `count` pending bytes into the current part.
        mutating func take(_ count: Int) throws {
            guard count > 0 else { return }
            switch state {
            case .field(let name, var bytes):
                guard bytes.count + count <= fieldLimit else {
                    SecretBytes.wipe(&bytes)
                    throw Refusal.tooLarge
                }
                bytes.append(contentsOf: pending[..<count])
                state = .field(name: name, bytes: bytes)
            case .file(let handle, let url, let size, let filename):
                guard size + count <= fileLimit else { throw Refusal.tooLarge }
                do { try handle.write(contentsOf: pending[..<count]) } catch { throw Refusal.storage("\(error)") }
                state = .file(handle, url: url, size: size + count, filename: filename)
            default:
                break
            }
            keepTail(count)
        }

        mutating func endPart() throws {
            switch state {
            case .field(let name, let bytes):
                upload.fields[name] = bytes
            case .file(let handle, let url, let size, let filename):
                do { try handle.close() } catch { throw Refusal.storage("\(error)") }
                upload.file = (url, size, filename)
            default:
                break
            }
        }

        /// Drops the first `count` pending bytes (wiping them: a field may be a password).
        mutating func keepTail(_ count: Int) {
            guard count > 0 else { return }
            pending.withUnsafeMutableBufferPointer { buffer in
                for i in 0..<count { buffer[i] = 0 }
            }
            pending.removeFirst(count)
        }

        /// Where `needle` first starts in the pending bytes.
        func find(_ needle: [UInt8]) -> Int? {
            guard pending.count >= needle.count, let first = needle.first else { return nil }
            return pending.withUnsafeBufferPointer { hay in
                var i = 0
                let last = hay.count - needle.count
                while i <= last {
                    guard let p = memchr(hay.baseAddress! + i, Int32(first), last - i + 1) else { return nil }
                    i = UnsafeRawPointer(hay.baseAddress!).distance(to: UnsafeRawPointer(p))
                    if memcmp(hay.baseAddress! + i, needle, needle.count) == 0 { return i }
                    i += 1
                }
                return nil
            }
        }

        /// Closes a file left open by a body that ended early, and wipes what is pending.
        mutating func close() {
            if case .file(let handle, _, _, _) = state { try? handle.close() }
            if case .field(_, var bytes) = state { SecretBytes.wipe(&bytes) }
            keepTail(pending.count)
        }
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
