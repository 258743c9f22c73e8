// SPDX-License-Identifier: Apache-2.0
import PuffDBus

/// Typed reads from one `a{sv}` of a reply: an absent key is `nil`, a key of the wrong type throws.
struct ReplyFields {
    private let values: [String: DBusValue]
    /// The method whose reply this is, for the error.
    let member: String

    /// Wraps the unwrapped entries of one `a{sv}` of the reply to `member`.
    init(_ values: [String: DBusValue], member: String) {
        self.values = values
        self.member = member
    }

    /// The `s` value of `key`.
    func string(_ key: String) throws(ClientError) -> String? {
        try read(key) { if case .string(let value) = $0 { value } else { nil } }
    }

    /// The `b` value of `key`.
    func bool(_ key: String) throws(ClientError) -> Bool? {
        try read(key) { if case .boolean(let value) = $0 { value } else { nil } }
    }

    /// The `u` value of `key`.
    func uint32(_ key: String) throws(ClientError) -> UInt32? {
        try read(key) { if case .uint32(let value) = $0 { value } else { nil } }
    }

    /// The `t` value of `key`.
    func uint64(_ key: String) throws(ClientError) -> UInt64? {
        try read(key) { if case .uint64(let value) = $0 { value } else { nil } }
    }

    /// The `o` value of `key`, as text.
    func objectPath(_ key: String) throws(ClientError) -> String? {
        try read(key) { if case .objectPath(let value) = $0 { value.rawValue } else { nil } }
    }

    /// The `a{ss}` value of `key`.
    func stringDictionary(_ key: String) throws(ClientError) -> [String: String]? {
        try read(key) { $0.stringDictionary }
    }

    /// The elements of the array value of `key`.
    func array(_ key: String) throws(ClientError) -> [DBusValue]? {
        try read(key) { if case .array(_, let elements) = $0 { elements } else { nil } }
    }

    private func read<T>(_ key: String, _ extract: (DBusValue) -> T?) throws(ClientError) -> T? {
        guard let value = values[key] else { return nil }
        guard let typed = extract(value) else { throw .unexpectedReply(member: member) }
        return typed
    }
}
