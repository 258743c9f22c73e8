// SPDX-License-Identifier: Apache-2.0
import PuffDBus

/// Reply bodies shaped as `dbus/io.puff.Control1.xml` gives them, built by hand.
enum Replies {
    /// An `a{sv}` from key/value pairs, in the given order.
    static func dictionary(_ pairs: [(String, DBusValue)]) -> DBusValue {
        .dictionary(key: "s", value: "v", pairs.map { .init(.string($0.0), .variant($0.1)) })
    }

    /// A collection's passcode policy as `Status` gives it: name, minimum length, text.
    typealias Policy = (name: String, minimumLength: UInt32, text: String)

    /// A full collection entry of `Status`; `policy` left out as for a damaged collection.
    static func collection(
        _ id: String, label: String, locked: Bool, items: UInt32, isPrivate: Bool = false, hidden: Bool = false,
        isDefault: Bool = false, damaged: String = "", policy: Policy? = nil
    ) -> DBusValue {
        var pairs: [(String, DBusValue)] = [
            ("id", .string(id)), ("label", .string(label)), ("locked", .boolean(locked)), ("items", .uint32(items)),
            ("private", .boolean(isPrivate)), ("hidden", .boolean(hidden)), ("default", .boolean(isDefault)),
            ("damaged", .string(damaged)), ("store", .string("file")),
        ]
        if let policy {
            pairs += [
                ("policy", .string(policy.name)), ("min_length", .uint32(policy.minimumLength)),
                ("policy_text", .string(policy.text)),
            ]
        }
        return dictionary(pairs)
    }

    /// A `Status` body: an initialized file vault with `collections`.
    static func status(initialized: Bool = true, _ collections: [DBusValue]) -> [DBusValue] {
        [
            dictionary([
                ("initialized", .boolean(initialized)), ("store", .string("file")),
                ("data_dir", .string("/home/me/.local/share/puff")), ("version", .string("0.1.0")),
                ("prompter", .string("agent")),
            ]),
            .array(element: "a{sv}", collections),
        ]
    }

    /// An `Audit` body: a read by secret-tool in `login` and a change by an unknown caller; `work`
    /// locked; `login`'s log dropped 12 entries when it rotated; no page follows.
    static let audit: [DBusValue] = [
        .array(
            element: "a{sv}",
            [
                dictionary([
                    ("collection", .string("login")), ("time", .uint64(1_700_000_100)), ("action", .string("read")),
                    ("result", .string("allowed")), ("item", .objectPath(ObjectPath("/i/1")!)),
                    ("label", .string("GitHub")), ("client", .string(":1.7")),
                    ("executable", .string("/usr/bin/secret-tool")), ("pid", .uint32(4242)),
                    ("sequence", .uint64(14)),
                ]),
                dictionary([
                    ("collection", .string("login")), ("time", .uint64(1_700_000_000)),
                    ("action", .string("change-label")), ("result", .string("failed")),
                    ("item", .objectPath(ObjectPath("/i/2")!)), ("label", .string("Mail")),
                    ("client", .string(":1.9")), ("sequence", .uint64(13)),
                ]),
            ]),
        .stringDictionary(["work": "locked"]),
        .dictionary(key: "s", value: "t", [.init(.string("login"), .uint64(12))]),
        .boolean(false),
    ]

    /// The `Status` body most tests use: `login` (default, unlocked, the default policy) and
    /// `work` (private, locked, `digits6`).
    static let twoCollections = status([
        collection(
            "login", label: "Login", locked: false, items: 3, isDefault: true,
            policy: ("alphanumeric", 8, "at least 8 characters")),
        collection("work", label: "Work", locked: true, items: 1, isPrivate: true, policy: ("digits6", 6, "6 digits")),
    ])
}
