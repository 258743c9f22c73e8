// SPDX-License-Identifier: Apache-2.0
import CCurl
import Dispatch
import PuffCrypto
import Synchronization

/// HTTP through libcurl's easy interface: one handle per request at a time, idle handles kept in
/// a small pool so that their connections to the server are reused. `curl_easy_perform` blocks,
/// so requests run on Dispatch threads, never on Swift's cooperative pool.
final class CurlTransport: Sendable {
    /// How long to wait, and whom to trust.
    struct Settings: Sendable {
        var connectTimeout: Duration
        var timeout: Duration
        /// PEM file of the certificate authorities a `https` server must chain to; nil: the system's.
        var caFile: String?
    }

    /// One request. Header lines and the body are in locked memory (one header holds the token).
    struct Request: Sendable {
        var url: String
        var post: Bool
        /// `Name: value` lines, each NUL-terminated.
        var headers: [SecureBytes]
        var body: SecureBytes?
    }

    /// An answer's status, body and Date header. The body is zeroed when the answer is released:
    /// it may hold a token or a transit plaintext.
    final class Answer: @unchecked Sendable {
        // @unchecked: `bytes` is only mutated by deinit.
        let status: Int
        private(set) var bytes: [UInt8]
        /// The server's clock in seconds since 1970 (the Date header), nil without one.
        let date: Int64?

        init(status: Int, bytes: [UInt8], date: Int64?) {
            self.status = status
            self.bytes = bytes
            self.date = date
        }

        deinit { SecureBytes.wipe(&bytes) }
    }

    /// The largest answer read: far above a KV entry (OpenBao's own request limit is 32 MiB).
    static let answerLimit = 64 << 20
    /// How many idle handles are kept.
    static let poolSize = 4

    /// `curl_global_init`, once per process.
    private static let ready: Bool = puff_curl_global_init() == CURLE_OK

    let settings: Settings
    private let idle = Mutex<[EasyHandle]>([])

    init(_ settings: Settings) {
        self.settings = settings
    }

    deinit {
        for handle in idle.withLock({ $0 }) { curl_easy_cleanup(handle.pointer) }
    }

    /// Runs `request` on a Dispatch thread; the failure is libcurl's reason (no URL, no header).
    func send(_ request: Request) async -> Result<Answer, CurlFailure> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Answer, CurlFailure>, Never>) in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: self.perform(request))
            }
        }
    }

    /// Runs `request` on this thread, waiting at most the settings' timeouts.
    func perform(_ request: Request) -> Result<Answer, CurlFailure> {
        guard Self.ready, let handle = idle.withLock({ $0.popLast()?.pointer }) ?? curl_easy_init() else {
            return .failure(CurlFailure(reason: "libcurl could not be initialised"))
        }
        defer { release(handle) }
        curl_easy_reset(handle)
        // Heap memory of our own: libcurl keeps these pointers until the request ends.
        let body = UnsafeMutablePointer<puff_curl_body>.allocate(capacity: 1)
        body.initialize(to: puff_curl_body(bytes: nil, count: 0, capacity: 0, limit: Self.answerLimit))
        let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorText.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var headers: UnsafeMutablePointer<curl_slist>?
        defer {
            puff_curl_slist_wipe_free(headers)
            puff_curl_body_free(body)
            body.deallocate()
            errorText.deallocate()
        }
        for line in request.headers {
            line.withUnsafeBytes { raw in
                headers = curl_slist_append(headers, raw.baseAddress?.assumingMemoryBound(to: CChar.self))
            }
        }
        var code = configure(handle, request, headers: headers, body: body, errorText: errorText)
        if code == CURLE_OK {
            code = (request.body ?? .empty).withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> CURLcode in
                if request.post {
                    _ = puff_curl_set_long(handle, CURLOPT_POST, 1)
                    _ = puff_curl_set_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(raw.count))
                    // Not copied by libcurl (CURLOPT_COPYPOSTFIELDS would be): it stays in locked memory.
                    // Never NULL, even when empty: libcurl would then read the body from stdin.
                    _ = puff_curl_set_pointer(
                        handle, CURLOPT_POSTFIELDS, raw.baseAddress ?? UnsafeRawPointer(errorText))
                }
                return curl_easy_perform(handle)
            }
        }
        guard code == CURLE_OK else {
            let detail = String(cString: errorText)
            return .failure(CurlFailure(reason: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail))
        }
        var status = 0
        _ = puff_curl_response_code(handle, &status)
        let date = puff_curl_date_header(handle).map { Int64(curl_getdate($0, nil)) }.flatMap { $0 < 0 ? nil : $0 }
        let bytes = Array(UnsafeBufferPointer(start: body.pointee.bytes, count: body.pointee.count))
        return .success(Answer(status: status, bytes: bytes, date: date))
    }

    /// Sets everything but the body; the first refusal's code.
    private func configure(
        _ handle: UnsafeMutableRawPointer, _ request: Request, headers: UnsafeMutablePointer<curl_slist>?,
        body: UnsafeMutablePointer<puff_curl_body>, errorText: UnsafeMutablePointer<CChar>
    ) -> CURLcode {
        let milliseconds = { (duration: Duration) in
            Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
        }
        let codes: [CURLcode] = [
            request.url.withCString { puff_curl_set_pointer(handle, CURLOPT_URL, $0) },
            // No signals: libcurl is used from many threads (its name-resolution timeout would use SIGALRM).
            puff_curl_set_long(handle, CURLOPT_NOSIGNAL, 1),
            puff_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(settings.connectTimeout)),
            puff_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds(settings.timeout)),
            // Only HTTP(S), no redirect followed, no proxy from the environment: the token goes to
            // the configured server and nowhere else.
            "http,https".withCString { puff_curl_set_pointer(handle, CURLOPT_PROTOCOLS_STR, $0) },
            puff_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0),
            "".withCString { puff_curl_set_pointer(handle, CURLOPT_PROXY, $0) },
            settings.caFile.map { file in file.withCString { puff_curl_set_pointer(handle, CURLOPT_CAINFO, $0) } }
                ?? CURLE_OK,
            puff_curl_set_pointer(handle, CURLOPT_HTTPHEADER, headers),
            puff_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorText),
            puff_curl_collect_body(handle, body),
        ]
        return codes.first { $0 != CURLE_OK } ?? CURLE_OK
    }

    /// Puts `handle` back in the pool, or frees it when the pool is full.
    private func release(_ handle: UnsafeMutableRawPointer) {
        let kept = idle.withLock { idle in
            guard idle.count < Self.poolSize else { return false }
            idle.append(EasyHandle(pointer: handle))
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
    }
}

/// A libcurl easy handle in the pool.
private struct EasyHandle: @unchecked Sendable {
    // @unchecked: a handle is used by one thread at a time, the one that took it out of the pool.
    let pointer: UnsafeMutableRawPointer
}

/// Why libcurl got no answer, in its words: a refused connection, a timeout, a TLS failure.
struct CurlFailure: Error, Sendable {
    let reason: String
}
