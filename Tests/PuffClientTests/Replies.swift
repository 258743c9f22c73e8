// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol

/// Reply bodies shaped as `dbus/io.puff.Control1.xml` gives them, built by hand.
enum Replies {
    private typealias Key = ControlContract.Key

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
            (Key.id, .string(id)), (Key.label, .string(label)), (Key.locked, .boolean(locked)),
            (Key.items, .uint32(items)),
            (Key.isPrivate, .boolean(isPrivate)), (Key.hidden, .boolean(hidden)), (Key.isDefault, .boolean(isDefault)),
            (Key.damaged, .string(damaged)), (Key.store, .string("file")),
        ]
        if let policy {
            pairs += [
                (Key.policy, .string(policy.name)), (Key.minimumLength, .uint32(policy.minimumLength)),
                (Key.policyText, .string(policy.text)),
            ]
        }
        return dictionary(pairs)
    }

    /// A `Status` body: an initialized file vault with `collections`.
    static func status(initialized: Bool = true, _ collections: [DBusValue]) -> [DBusValue] {
        [
            dictionary([
                (Key.initialized, .boolean(initialized)), (Key.store, .string("file")),
                (Key.dataDirectory, .string("/home/me/.local/share/puff")), (Key.version, .string("0.1.0")),
                (Key.prompter, .string("agent")),
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
                    (Key.collection, .string("login")), (Key.time, .uint64(1_700_000_100)),
                    (Key.action, .string("read")),
                    (Key.result, .string("allowed")), (Key.item, .objectPath(ObjectPath("/i/1")!)),
                    (Key.label, .string("GitHub")), (Key.client, .string(":1.7")),
                    (Key.executable, .string("/usr/bin/secret-tool")), (Key.pid, .uint32(4242)),
                    (Key.sequence, .uint64(14)),
                ]),
                dictionary([
                    (Key.collection, .string("login")), (Key.time, .uint64(1_700_000_000)),
                    (Key.action, .string("change-label")), (Key.result, .string("failed")),
                    (Key.item, .objectPath(ObjectPath("/i/2")!)), (Key.label, .string("Mail")),
                    (Key.client, .string(":1.9")), (Key.sequence, .uint64(13)),
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
