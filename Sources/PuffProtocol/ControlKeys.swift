// SPDX-License-Identifier: Apache-2.0

extension ControlContract {
    /// Keys of the `a{sv}` dictionaries `io.puff.Control1` passes (dbus/io.puff.Control1.xml): the
    /// options of `Init`, `CreateCollection` and `DeleteCollection`, and the records `Status`,
    /// `DeleteCollection`, `DeletedCollections` and `ListItems` answer with. puffd writes them
    /// and puffctl reads them from here, so the two sides cannot spell one differently.
    public enum Key {
        /// `Status`, the vault's record: whether `Init` has run (b).
        public static let initialized = "initialized"
        /// The store kind, `file` or `memory` (s); also in each collection's record.
        public static let store = "store"
        /// Where puffd keeps its files (s).
        public static let dataDirectory = "data_dir"
        /// puffd's version (s).
        public static let version = "version"
        /// Who would answer an unlock prompt now: `agent`, `pinentry`, `none` (s).
        public static let prompter = "prompter"
        /// What is wrong with the vault beside its collections (as).
        public static let problems = "problems"

        /// A collection's id (s).
        public static let id = "id"
        /// A display name (s).
        public static let label = "label"
        /// Whether it is locked (b).
        public static let locked = "locked"
        /// How many items (u).
        public static let items = "items"
        /// Whether a collection has a passcode of its own (b); also a `CreateCollection` option.
        public static let isPrivate = "private"
        /// Whether a collection is listed only while open (b); also a `CreateCollection` option.
        public static let hidden = "hidden"
        /// Whether the `default` alias points at it (b).
        public static let isDefault = "default"
        /// Why its files failed to open; empty when fine (s).
        public static let damaged = "damaged"
        /// `always`, `after-unlock` or `never` (s, ``LockedSearchName``); a `CreateCollection` option
        /// too, where `tpm2` is also accepted.
        public static let lockedSearch = "locked_search"
        /// Where an `always` collection's index key lives: `clear` or `tpm2` (s).
        public static let indexKey = "index_key"
        /// Whether the TPM did not unseal its index key at start (b).
        public static let searchWaitsForUnlock = "search_waits_for_unlock"
        /// A fleet collection's name in its shared store (s); only fleet collections have it.
        public static let sharedName = "shared_name"
        /// Whether a fleet collection's shared store answered the last pull or append (b); absent
        /// before the first.
        public static let online = "online"
        /// When the last pull or append was tried, seconds since the epoch; 0 before the first (t).
        public static let checkedAt = "checked_at"
        /// When the shared store last answered, seconds since the epoch; 0 when not since puffd
        /// started (t).
        public static let reachedAt = "reached_at"
        /// Why the last pull or append did not reach the shared store; empty when it did (s).
        public static let offlineReason = "offline_reason"

        /// The passcode policy's name (s, ``PasscodePolicyName``): a `Status` field and an option of
        /// `Init` and `CreateCollection`.
        public static let policy = "policy"
        /// The policy's minimum length (u).
        public static let minimumLength = "min_length"
        /// What a passcode needs, for people (s).
        public static let policyText = "policy_text"

        /// A passcode, as the read end of a pipe (h): `DeleteCollection`'s option.
        public static let passcode = "passcode"

        /// When a collection was deleted, seconds since the epoch (t).
        public static let deletedAt = "deleted_at"
        /// The name a deleted collection is kept under (s).
        public static let name = "name"
        /// How many days deleted collections are kept (u).
        public static let keptDays = "kept_days"

        /// `ListItems`: the item's object path (o).
        public static let path = "path"
        /// The item's attributes (a{ss}).
        public static let attributes = "attributes"
        /// Creation time, seconds since the epoch (t).
        public static let created = "created"
        /// Modification time, seconds since the epoch (t).
        public static let modified = "modified"
        /// The typed record's kind (s).
        public static let kind = "kind"
        /// The typed record's fields (a{ss}).
        public static let fields = "fields"

        /// `ListAccess`: whether reading the item needs a confirmation every time (b).
        public static let protected = "protected"
        /// The item's access rules (aa{sv}), each an ``executable``, ``allow``, ``digest`` and ``app``.
        public static let rules = "rules"
        /// An executable's path (s): an access rule's, an audit entry's caller's.
        public static let executable = "executable"
        /// Whether the rule lets the executable read (b).
        public static let allow = "allow"
        /// The executable's content digest the rule is bound to, hex; empty when none (s).
        public static let digest = "digest"

        /// `Audit`: the collection (s); also a backup option and an agent question's.
        public static let collection = "collection"
        /// When, seconds since the epoch (t).
        public static let time = "time"
        /// What was done (s).
        public static let action = "action"
        /// How it ended (s).
        public static let result = "result"
        /// The item (o in `Audit`; its number, t, in an agent question).
        public static let item = "item"
        /// The caller's unique bus name (s).
        public static let client = "client"
        /// The entry's place in its log (t).
        public static let sequence = "sequence"
        /// The caller's process id (u).
        public static let pid = "pid"
        /// A Flatpak app id (s), such as `org.example.App`: a sandboxed caller's in `Audit`, an
        /// access rule's in `ListAccess` (empty for an executable's rule).
        public static let app = "app"

        /// `Backup`, `Restore`: files in the archive (u).
        public static let files = "files"
        /// Collections in the archive (u).
        public static let collections = "collections"
        /// Bytes written or read (t).
        public static let bytes = "bytes"
        /// Collections the archive holds that the catalog does not name (u).
        public static let unknown = "unknown"
        /// Where the snapshot taken before a restore is (s).
        public static let snapshot = "snapshot"
        /// The collections a restore brought back (as).
        public static let restored = "restored"
        /// `Verify`: the file a finding is about (s).
        public static let file = "file"
        /// What is wrong with it (s).
        public static let what = "what"
        /// Whether the finding is only a warning (b).
        public static let warning = "warning"
        /// Where in the file (t).
        public static let offset = "offset"

        /// `ExportItems`, `ImportItems`: why an item was left out or how it went (s).
        public static let reason = "reason"
        /// `ImportItems`: check only, store nothing (b).
        public static let dryRun = "dry_run"
        /// The item's place in the imported file (u).
        public static let index = "index"
        /// What happened to it: `added`, `replaced`, `skipped`, … (s); how a `CheckStore` check
        /// came out: `ok`, `warn` or `fail`.
        public static let outcome = "outcome"

        /// `CheckStore`: what was checked, `reachable`, `authenticated`, `policy` or `clock` (s).
        public static let check = "check"
        /// One line saying what was found (s).
        public static let summary = "summary"
        /// Lines shown under it (as).
        public static let details = "details"
        /// What to do about it; empty when nothing is (s).
        public static let next = "next"

        /// Slots: which slot (q in options; its kind's word, s, in an agent question).
        public static let slot = "slot"
        /// A recovery code, as a pipe (h).
        public static let recovery = "recovery"
        /// A security key's PIN, as a pipe (h); in `ListSlots`, whether it needs one (b).
        public static let pin = "pin"
        /// The passcode of a fido2+passcode slot, as a pipe (h).
        public static let fido2Passcode = "fido2_passcode"
        /// The security key's device (s).
        public static let fido2Device = "fido2_device"
        /// The TPM as tpm2-tss names it (s).
        public static let tpm2Device = "tpm2_device"
        /// The slot's kind: `passcode`, `tpm2`, `fido2`, … (s).
        public static let type = "type"
        /// The PCRs a tpm2 slot is sealed to, as a mask (u).
        public static let pcrs = "pcrs"
        /// Whether a fido2 slot needs the user's presence, a touch (b).
        public static let userPresence = "up"
        /// The OpenBao transit key a transit slot's key is wrapped with (s).
        public static let transitKey = "transit_key"
        /// Whether a fido2 slot needs the user verified by the key (b).
        public static let userVerification = "uv"
        /// A re-key may drop the slots whose credential is not at hand (b).
        public static let dropSlots = "drop_slots"
        /// The login password, as a pipe (h).
        public static let login = "login"
        /// Prove with the security key (b).
        public static let securityKey = "security_key"

        /// An agent question: the asking application (s).
        public static let application = "application"
        /// The window to attach the question to (s).
        public static let windowID = "window_id"
        /// Why the question is asked again: the last answer's error (s).
        public static let error = "error"
        /// What the asked change does (s).
        public static let change = "change"
        /// The slot's label (s).
        public static let slotLabel = "slot_label"
        /// What may be typed instead of touching a key (s).
        public static let instead = "instead"
        /// PIN retries left; -1 when unknown (i).
        public static let retries = "retries"
        /// Why the person is asked: `unlock`, `create`, `confirm-read`, … (s).
        public static let purpose = "purpose"
        /// Whether the answer is typed twice, a new passcode (b).
        public static let repeats = "repeat"

        /// The keys of `Status`'s vault record.
        public static let vaultStatus = [initialized, store, dataDirectory, version, prompter, problems]
        /// The keys of each collection record of `Status`.
        public static let collectionStatus = [
            id, label, locked, items, isPrivate, hidden, isDefault, damaged, store, lockedSearch, indexKey,
            searchWaitsForUnlock, policy, minimumLength, policyText, sharedName, online, checkedAt, reachedAt,
            offlineReason,
        ]
        /// The keys of a collection record of `Status` that only a fleet collection has.
        public static let sharedStatus = [sharedName, online, checkedAt, reachedAt, offlineReason]
        /// The keys of `DeleteCollection`'s and `DeletedCollections`' records.
        public static let deletedCollection = [id, label, items, deletedAt, name, hidden, keptDays]
        /// The keys of each `ListItems` record.
        public static let listedItem = [path, label, attributes, created, modified, locked, kind, fields]
        /// The option keys of `Init`, `CreateCollection` and `DeleteCollection`.
        public static let options = [policy, minimumLength, isPrivate, hidden, lockedSearch, passcode]

        /// The keys of the other records: access, audit, backup, export, import, slots, agents.
        public static let others = [
            protected, rules, executable, allow, digest, collection, time, action, result, item, client, sequence,
            pid, app, files, collections, bytes, unknown, snapshot, restored, file, what, warning, offset, reason,
            dryRun,
            index, outcome, check, summary, details, next, slot, recovery, pin, fido2Passcode, fido2Device, tpm2Device,
            type, pcrs, userPresence,
            userVerification, dropSlots, login, securityKey, application, windowID, error, change, slotLabel, instead,
            retries, purpose, repeats,
        ]

        /// Every key above.
        public static let all = Set(vaultStatus + collectionStatus + deletedCollection + listedItem + options + others)
    }
}

/// A passcode policy as `io.puff.Control1` and `puffctl --policy` name it.
public enum PasscodePolicyName: String, CaseIterable, Sendable {
    /// Exactly 4 ASCII digits.
    case digits4
    /// Exactly 6 ASCII digits.
    case digits6
    /// ASCII digits only, at least a minimum length.
    case numeric
    /// Anything of at least a minimum length (the default).
    case alphanumeric
}

/// Whether a collection's items are found while it is locked, as `io.puff.Control1` and
/// `puffctl --locked-search` name it.
public enum LockedSearchName: String, CaseIterable, Sendable {
    /// Found from start (the default).
    case always
    /// `always` with the index key sealed by this machine's TPM (an option; `Status` says
    /// `always` with ``ControlContract/Key/indexKey`` `tpm2`).
    case tpm2
    /// Found once unlocked since puffd started.
    case afterUnlock = "after-unlock"
    /// Found only while unlocked.
    case never
}
