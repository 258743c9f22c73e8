// SPDX-License-Identifier: Apache-2.0

/// What a sandboxed process's `/.flatpak-info` says about it: the app (`[Application] name`) and
/// the sandbox instance (`[Instance] instance-id`), read as GLib's key files are (flatpak writes
/// it with `GKeyFile`, and xdg-desktop-portal reads `name` with `g_key_file_get_string`).
///
/// Only the subset flatpak writes is accepted: UTF-8 without NUL, `#` comments, `[Group]` lines and
/// `key=value` lines, the first non-comment line a group. Anything else, a `name` that is no valid
/// ``AppID``, or either key given twice in its group makes the file unreadable (nil): a caller
/// whose file flatpak would not have written is never believed.
public struct FlatpakInfo: Sendable, Equatable {
    /// `[Application] name`.
    public let app: AppID
    /// `[Instance] instance-id` (digits in flatpak's files), nil when absent or not a plain token;
    /// it tells instances of one app apart in logs and never decides access.
    public let instance: String?

    /// The longest instance id kept, in bytes.
    static let maximumInstanceLength = 64

    /// Parses the file's bytes; nil when they are no key file of the subset above or name no app.
    public init?(parsing bytes: [UInt8]) {
        guard !bytes.contains(0), String(validating: bytes, as: UTF8.self) != nil else { return nil }
        // Bytes, as GKeyFile reads them: a `\r\n` or `=` with a combining mark is no line end or
        // separator here either.
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        var group: ArraySlice<UInt8>?
        var name: String?
        var instance: String?
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            // GKeyFile skips leading blanks; a value keeps its trailing ones (so an id with a
            // trailing blank is no valid id here, as it names no app flatpak could run).
            let line = rawLine.drop(while: blank)
            if line.isEmpty || line.first == UInt8(ascii: "#") { continue }
            if line.first == UInt8(ascii: "[") {
                guard let close = line.firstIndex(of: UInt8(ascii: "]")), line[(close + 1)...].allSatisfy(blank)
                else { return nil }
                let name = line[(line.startIndex + 1)..<close]
                guard !name.isEmpty, !name.contains(UInt8(ascii: "[")) else { return nil }
                group = name
                continue
            }
            // GKeyFile refuses a key before any group, and a line that is neither.
            guard let group, let equals = line.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            var key = line[..<equals]
            while let last = key.last, blank(last) { key = key.dropLast() }
            guard !key.isEmpty else { return nil }
            let value = String(decoding: line[(equals + 1)...].drop(while: blank), as: UTF8.self)
            switch (String(decoding: group, as: UTF8.self), String(decoding: key, as: UTF8.self)) {
            case ("Application", "name"):
                guard name == nil else { return nil }
                name = value
            case ("Instance", "instance-id"):
                guard instance == nil else { return nil }
                instance = value
            default:
                continue
            }
        }
        guard let name, let app = AppID(rawValue: name) else { return nil }
        self.app = app
        self.instance = instance.flatMap(Self.token)
    }

    /// `value` when it is a short run of letters, digits, `.`, `_` and `-`; else nil.
    private static func token(_ value: String) -> String? {
        let bytes = value.utf8
        guard !bytes.isEmpty, bytes.count <= maximumInstanceLength else { return nil }
        let allowed = bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
        return allowed ? value : nil
    }
}
