// SPDX-License-Identifier: Apache-2.0

/// What an audit entry records was done to an item.
public enum AuditAction: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// The secret was asked for (`GetSecret`, `GetSecrets`); the result says whether it was given.
    case read = 1
    /// A new item was stored.
    case create = 2
    /// `CreateItem` with `replace` overwrote the item with the identical attribute set.
    case replace = 3
    case changeSecret = 4
    case changeAttributes = 5
    case changeLabel = 6
    case changeType = 7
    case delete = 8
    /// `puffctl protect`: reads of the item ask for a confirmation from now on.
    case protect = 9
    /// `puffctl unprotect`: the item's protection lifted (needs the person).
    case unprotect = 10
    /// `puffctl access allow`: a rule letting an executable read the item (needs the person).
    case allowAccess = 11
    /// `puffctl access deny`: a rule refusing an executable the item.
    case denyAccess = 12
    /// `puffctl access revoke`: rules forgotten (forgetting a denial needs the person).
    case revokeAccess = 13
    /// An agent registered to answer puffd's questions (`puffctl agent`); item 0. Recorded in
    /// every unlocked collection's log.
    case registerAgent = 14
    /// The log's file was found removed while puffd ran; puffd started a new one, which begins
    /// with this entry (item 0).
    case logRemoved = 15
    /// The item's secret was handed to `puffctl export` for a file under another password; the
    /// result says whether the access gate let it through. A refused consent to the whole
    /// export is one entry for item 0, labelled with the collection's label.
    case export = 16
    /// The Secret portal asked for an app's key (docs/design/sandboxed-apps.md §4.3); the label is
    /// the app id, the item the key, or 0 for a call refused before one was found (a caller that
    /// is not xdg-desktop-portal). Making the key is a `create` entry of its own.
    case portalKey = 17
    /// The whole collection was deleted (set aside, restorable); the entry's item is 0 and its
    /// label the collection's.
    case deleteCollection = 20
    /// The collection's locked search changed (`puffctl collection set --locked-search`); item 0,
    /// the label says from which mode to which.
    case lockedSearch = 21
    /// A slot was added (`puffctl slot add`); item 0, the label names its type and label
    /// (`fido2 “yubikey”`).
    case slotAdd = 22
    /// A slot was removed (`puffctl slot remove`); item 0, the label names it.
    case slotRemove = 23
    /// A slot was renamed; item 0, the label says from which name to which.
    case slotRelabel = 24
    /// The whole vault was replaced from a backup (`puffctl restore`); item 0, the label names the
    /// backup. Written before the automatic snapshot, so the snapshot of what was replaced holds it.
    case restoreVault = 30

    /// The name `puffctl audit` shows: `read`, `create`, `change-secret`, …
    public var description: String {
        switch self {
        case .read: "read"
        case .create: "create"
        case .replace: "replace"
        case .changeSecret: "change-secret"
        case .changeAttributes: "change-attributes"
        case .changeLabel: "change-label"
        case .changeType: "change-type"
        case .delete: "delete"
        case .protect: "protect"
        case .unprotect: "unprotect"
        case .allowAccess: "access-allow"
        case .denyAccess: "access-deny"
        case .revokeAccess: "access-revoke"
        case .registerAgent: "agent-register"
        case .logRemoved: "log-removed"
        case .export: "export"
        case .portalKey: "portal-key"
        case .deleteCollection: "delete-collection"
        case .lockedSearch: "locked-search"
        case .slotAdd: "slot-add"
        case .slotRemove: "slot-remove"
        case .slotRelabel: "slot-relabel"
        case .restoreVault: "restore-vault"
        }
    }
}

/// How an audited request ended.
public enum AuditResult: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// Done: the secret was released, or the change saved.
    case allowed = 1
    /// An access rule or a person said no.
    case refused = 2
    /// A confirmation prompt was dismissed or timed out, or no prompter could ask.
    case dismissed = 3
    /// The change could not be saved, or the secret not opened.
    case failed = 4

    /// `allowed`, `refused`, `dismissed` or `failed`.
    public var description: String {
        switch self {
        case .allowed: "allowed"
        case .refused: "refused"
        case .dismissed: "dismissed"
        case .failed: "failed"
        }
    }
}

/// One audit log entry: who did what to which item, when, and how it ended. Never the secret, and
/// never attribute values: the label names the item.
public struct AuditEntry: Sendable, Equatable {
    public var collection: CollectionID
    /// Seconds since the epoch.
    public var time: UInt64
    public var action: AuditAction
    public var result: AuditResult
    /// The item's number in its collection.
    public var item: UInt64
    /// The item's label when the entry was made.
    public var label: String
    /// The caller's executable, when the bus could tell.
    public var executable: String?
    /// The caller's unique bus name (`puffd` for the daemon's own work).
    public var client: String
    public var pid: UInt32?
    /// The Flatpak app id of a sandboxed caller (its executable is then the app's xdg-dbus-proxy,
    /// or a path in its sandbox); nil for any other caller and for entries older than version 2.
    public var app: String?
    /// The entry's number in its collection's log (1, 2, …): sealed with it, so a page of
    /// `puffctl audit` goes on after the last entry it got.
    public var sequence: UInt64

    public init(
        collection: CollectionID, time: UInt64, action: AuditAction, result: AuditResult, item: UInt64,
        label: String, executable: String?, client: String, pid: UInt32?, app: String? = nil, sequence: UInt64 = 0
    ) {
        self.sequence = sequence
        self.app = app
        self.collection = collection
        self.time = time
        self.action = action
        self.result = result
        self.item = item
        self.label = label
        self.executable = executable
        self.client = client
        self.pid = pid
    }
}

/// What ``SecretService/auditEntries(since:collection:)`` found.
public struct AuditReport: Sendable {
    /// A log that could not be read whole.
    public struct Problem: Sendable, Equatable {
        public var collection: CollectionID
        /// For people: damage, entries that did not open, entries out of order.
        public var reason: String
    }

    /// Whether puffd keeps audit logs (`[audit] enabled`); when not, the rest is empty.
    public var isEnabled: Bool
    /// Entries of unlocked collections, oldest first within each collection, collections in
    /// their usual order.
    public var entries: [AuditEntry]
    /// Collections whose logs are sealed because they are locked.
    public var locked: [CollectionID]
    public var problems: [Problem]
    /// How many entries each log lost to rotation: the number its oldest kept entry carries,
    /// less one (sealed with that entry, so not to be made smaller). Only logs that lost some.
    public var rotatedAway: [CollectionID: UInt64] = [:]
}
