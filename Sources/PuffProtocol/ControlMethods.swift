// SPDX-License-Identifier: Apache-2.0

extension ControlContract {
    /// One method of `io.puff.Control1` with its arguments' names and signatures, as
    /// dbus/io.puff.Control1.xml declares them: puffd builds its method table from these and
    /// puffctl sends and checks its calls with them, so the two sides cannot disagree on a shape.
    public struct Method: Sendable, Equatable {
        /// One argument: its name and its signature.
        public struct Argument: Sendable, Equatable {
            public let name: String
            public let signature: String

            public init(name: String, signature: String) {
                self.name = name
                self.signature = signature
            }
        }

        public let name: String
        public let inputs: [Argument]
        public let outputs: [Argument]

        init(
            _ name: String, in inputs: KeyValuePairs<String, String> = [:],
            out outputs: KeyValuePairs<String, String> = [:]
        ) {
            self.name = name
            self.inputs = inputs.map { Argument(name: $0.key, signature: $0.value) }
            self.outputs = outputs.map { Argument(name: $0.key, signature: $0.value) }
        }

        /// The signature a call's body carries.
        public var inputSignature: String { inputs.map(\.signature).joined() }
        /// The signature a reply's body carries.
        public var outputSignature: String { outputs.map(\.signature).joined() }
    }
}

extension ControlContract.Method {
    public static let status = Self("Status", out: ["vault": "a{sv}", "collections": "aa{sv}"])
    public static let initialize = Self("Init", in: ["options": "a{sv}", "passcode": "h"])
    public static let unlock = Self("Unlock", in: ["collection": "s", "passcode": "h"], out: ["unlocked": "s"])
    public static let lock = Self("Lock", in: ["collections": "as"])
    public static let changePasscode = Self(
        "ChangePasscode", in: ["collection": "s", "old_passcode": "h", "new_passcode": "h"])
    public static let createCollection = Self(
        "CreateCollection", in: ["label": "s", "options": "a{sv}", "passcode": "h"], out: ["collection": "s"])
    public static let setLockedSearch = Self(
        "SetLockedSearch", in: ["collection": "s", "mode": "s", "passcode": "h"])
    public static let listSlots = Self("ListSlots", in: ["collection": "s"], out: ["slots": "aa{sv}"])
    public static let addSlot = Self(
        "AddSlot", in: ["collection": "s", "type": "s", "options": "a{sv}", "proof": "h", "secret": "h"],
        out: ["slot": "q"])
    public static let removeSlot = Self(
        "RemoveSlot", in: ["collection": "s", "slot": "q", "options": "a{sv}", "proof": "h"])
    public static let relabelSlot = Self(
        "RelabelSlot", in: ["collection": "s", "slot": "q", "label": "s", "proof": "h"])
    public static let unlockWith = Self(
        "UnlockWith", in: ["collection": "s", "options": "a{sv}"], out: ["unlocked": "s"])
    public static let rekey = Self(
        "Rekey", in: ["collection": "s", "proof": "h", "new_passcode": "h", "options": "a{sv}"])
    public static let deleteCollection = Self(
        "DeleteCollection", in: ["collection": "s", "options": "a{sv}"], out: ["deleted": "a{sv}"])
    public static let deletedCollections = Self("DeletedCollections", out: ["deleted": "aa{sv}"])
    public static let restoreCollection = Self("RestoreCollection", in: ["name": "s"], out: ["collection": "s"])
    public static let shareCollection = Self("ShareCollection", in: ["collection": "s", "name": "s"])
    public static let attachCollection = Self("AttachCollection", in: ["name": "s"], out: ["collection": "s"])
    public static let renameCollection = Self("RenameCollection", in: ["collection": "s", "label": "s"])
    public static let setDefault = Self("SetDefault", in: ["collection": "s"])
    public static let importItems = Self(
        "ImportItems", in: ["collection": "s", "items": "h", "options": "a{sv}"], out: ["outcomes": "aa{sv}"])
    public static let exportItems = Self(
        "ExportItems", in: ["collection": "s", "items": "h", "options": "a{sv}"],
        out: ["summary": "a{sv}", "left_out": "aa{sv}"])
    public static let compact = Self("Compact", in: ["collection": "s"], out: ["reclaimed": "t"])
    public static let repair = Self(
        "Repair", in: ["collection": "s"], out: ["kept": "t", "lost": "as", "kept_at": "s"])
    public static let backup = Self("Backup", in: ["archive": "h"], out: ["report": "a{sv}"])
    public static let restore = Self("Restore", in: ["archive": "h", "options": "a{sv}"], out: ["report": "a{sv}"])
    public static let verify = Self(
        "Verify", out: ["findings": "aa{sv}", "checked": "as", "records": "t", "locked": "as"])
    public static let checkStore = Self("CheckStore", out: ["checks": "aa{sv}"])
    public static let listItems = Self("ListItems", in: ["collection": "s"], out: ["items": "aa{sv}"])
    public static let moveItem = Self("MoveItem", in: ["item": "o", "collection": "s"], out: ["moved": "o"])
    public static let audit = Self(
        "Audit", in: ["since": "t", "collection": "s", "after": "a{st}", "limit": "u"],
        out: ["entries": "aa{sv}", "unreadable": "a{ss}", "rotated": "a{st}", "more": "b"])
    public static let setProtected = Self("SetProtected", in: ["item": "o", "protected": "b", "consent": "a{sv}"])
    public static let setAccess = Self(
        "SetAccess", in: ["item": "o", "executable": "s", "allow": "b", "consent": "a{sv}"])
    public static let revokeAccess = Self("RevokeAccess", in: ["item": "o", "executable": "s", "consent": "a{sv}"])
    public static let setAppAccess = Self(
        "SetAppAccess", in: ["item": "o", "app": "s", "allow": "b", "consent": "a{sv}"])
    public static let revokeAppAccess = Self("RevokeAppAccess", in: ["item": "o", "app": "s", "consent": "a{sv}"])
    public static let listAccess = Self("ListAccess", in: ["items": "ao"], out: ["entries": "aa{sv}"])
    public static let registerAgent = Self("RegisterAgent", in: ["agent": "o"])
    public static let unregisterAgent = Self("UnregisterAgent", in: ["agent": "o"])

    /// Every method, in the order of dbus/io.puff.Control1.xml.
    public static let all: [Self] = [
        status, initialize, unlock, lock, changePasscode, createCollection, setLockedSearch, listSlots, addSlot,
        removeSlot, relabelSlot, unlockWith, rekey, deleteCollection, deletedCollections, restoreCollection,
        shareCollection, attachCollection, renameCollection, setDefault, importItems, exportItems, compact, repair,
        backup, restore, verify, checkStore, listItems,
        moveItem, audit, setProtected, setAccess, revokeAccess, setAppAccess, revokeAppAccess, listAccess,
        registerAgent, unregisterAgent,
    ]
}
