// SPDX-License-Identifier: Apache-2.0

/// Splits the server strings clients store into scheme, user, host, port and path, without
/// Foundation: docker's helper stores `https://index.docker.io/v1/` or `registry.example:5000`,
/// Chromium a whole origin URL.
///
/// Nothing is decoded or normalised: each part is a slice of what the client stored, so a host in
/// Unicode (an IDN) stays in Unicode and a percent-escape stays escaped.
struct NetworkAddress: Equatable {
    var scheme: String?
    var user: String?
    var host: String?
    var port: UInt16?
    var path: String?

    /// Parses `scheme://user@host:port/path`, where every part but the host may be missing;
    /// without `://` the text is `host[:port][/path]`.
    init(_ text: String) {
        var rest = Substring(text)
        if let separator = rest.firstRange(of: "://") {
            scheme = Self.nonEmpty(rest[..<separator.lowerBound])
            rest = rest[separator.upperBound...]
        }
        // The authority ends at the first `/`, `?` or `#`.
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<end]
        path = Self.nonEmpty(rest[end...])
        if let at = authority.lastIndex(of: "@") {
            user = Self.nonEmpty(authority[..<at])
            authority = authority[authority.index(after: at)...]
        }
        (host, port) = Self.hostAndPort(authority)
    }

    /// Splits `host[:port]`; an IPv6 address keeps its brackets (`[::1]:8443` → `[::1]`, 8443),
    /// and a bare IPv6 address (more than one colon, no brackets) has no port.
    static func hostAndPort(_ authority: Substring) -> (host: String?, port: UInt16?) {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = authority[...close]
            let after = authority[authority.index(after: close)...]
            return (String(host), after.hasPrefix(":") ? port(after.dropFirst()) : nil)
        }
        guard let colon = authority.lastIndex(of: ":"), authority.firstIndex(of: ":") == colon else {
            return (nonEmpty(authority), nil)
        }
        return (nonEmpty(authority[..<colon]), port(authority[authority.index(after: colon)...]))
    }

    /// A port from 1 to 65535 written in ASCII digits only, or nil: `"0"`, `"65536"`, `"-1"`,
    /// `"http"`, `" 80"` and `"８０"` (full-width digits) are no port.
    static func port(_ text: Substring) -> UInt16? {
        guard !text.isEmpty, text.utf8.count <= 5, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let number = UInt16(text), number > 0
        else { return nil }
        return number
    }

    /// ``port(_:)`` of a whole attribute value.
    static func port(_ text: String?) -> UInt16? {
        text.flatMap { port(Substring($0)) }
    }

    private static func nonEmpty(_ text: Substring) -> String? {
        text.isEmpty ? nil : String(text)
    }
}
