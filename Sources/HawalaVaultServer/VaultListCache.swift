import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization

/// Answers `GET /vault/backups` with the bytes encoded for the caller the last time, while the
/// caller's backups are unchanged: the storage's `backupsVersion`, read with the token on every
/// request, changes in the transaction of every upload, delete and prune in any process
/// sharing the database. A hit skips the list query and the JSON encoding (most of a listing's
/// cost). An entry is kept under the version read *before* its list, so it is never older
/// than that version; at worst a newer list is served for an older version, never the reverse.
final class VaultListCache: ServerMiddleware, Sendable {
    private struct Entry {
        let version: Int64
        let response: HTTPResponse
        let body: Data
    }

    /// Bytes of encoded listings kept in all; past it the cache starts over.
    let capacity: Int
    private let kept = Mutex<(entries: [Int64: Entry], bytes: Int)>(([:], 0))

    init(capacity: Int = 32 << 20) { self.capacity = capacity }

    func intercept(_ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
                   next: (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        guard operationID == "listBackups", let user = VaultRequest.user else { return try await next(request, body, metadata) }
        if let hit = kept.withLock({ $0.entries[user.id] }), hit.version == user.backupsVersion {
            return (hit.response, HTTPBody(hit.body))
        }
        let (response, responseBody) = try await next(request, body, metadata)
        // One user's listing may take at most a quarter of the cache.
        guard response.status == .ok, let responseBody, case .known(let length) = responseBody.length, length <= capacity / 4 else {
            return (response, responseBody)
        }
        let encoded = try await Data(collecting: responseBody, upTo: Int(length))
        let capacity = self.capacity
        kept.withLock { kept in
            if let old = kept.entries[user.id] {
                guard old.version <= user.backupsVersion else { return }  // a newer list is already kept
                kept.bytes -= old.body.count
            }
            if kept.bytes + encoded.count > capacity {
                kept.entries.removeAll()
                kept.bytes = 0
            }
            kept.entries[user.id] = Entry(version: user.backupsVersion, response: response, body: encoded)
            kept.bytes += encoded.count
        }
        return (response, HTTPBody(encoded))
    }
}
