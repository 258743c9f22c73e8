// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
public import PuffFormats

/// puffctl's exit statuses; scripts may rely on them.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// The command did what was asked.
    case success = 0
    /// Bad usage or input (including parse errors), a failed `doctor` check, or a failure with no
    /// status of its own.
    case usage = 1
    /// The passcode does not open the collection.
    case wrongPasscode = 2
    /// The collection is locked, or the vault has no passcode yet.
    case locked = 3
    /// No such collection or item.
    case notFound = 4
    /// puffd cannot be reached: no bus, no daemon, or another provider owns its name.
    case noDaemon = 5
}

/// Everything that makes a puffctl command fail, each with its exit status and a one-line message
/// that says what to do next.
///
/// D-Bus errors become these in ``init(_:collection:)`` and nowhere else, so the error names of
/// `dbus/io.puff.Control1.xml` map to exit statuses in this one file.
public enum ClientError: Error, Sendable, Equatable {
    /// Bad input found after parsing; the text says what was wrong.
    case usage(String)
    /// Neither a terminal nor `--stdin` or `--passcode-fd` to read a passcode from.
    case noPasscodeSource
    /// An empty line or immediate end of file where a passcode was expected.
    case emptyPasscode
    /// Longer than ``PasscodeReader/maximumLength``.
    case passcodeTooLong
    /// The new passcode and its repetition differed on every attempt.
    case passcodesDiffer
    /// `read` or `write` failed with this `errno`.
    case passcodeIOFailed(errno: Int32)
    /// `io.puff.Error.AlreadyInitialized`: `init` on a vault that has its passcode.
    case alreadyInitialized
    /// `io.puff.Error.PasscodePolicy`: the new passcode breaks the collection's policy; the text
    /// is the daemon's, which says what the policy needs.
    case passcodePolicy(String)
    /// `io.puff.Error.Damaged`: the collection's files failed to open.
    case damaged(collection: String?)
    /// `org.freedesktop.DBus.Error.AccessDenied`: puffctl runs as another user than puffd.
    case accessDenied
    /// A reply whose arguments do not have the types the XML gives for `member`.
    case unexpectedReply(member: String)
    /// Any other error the daemon or the bus answered with.
    case failed(name: String, message: String)
    /// `io.puff.Error.WrongPasscode`. A `collection` of `""` stands for the hidden collections
    /// (`unlock --hidden`).
    case wrongPasscode(collection: String?, nextTryIn: String? = nil)
    /// `io.puff.Error.IsLocked`: the call needs the collection unlocked.
    case locked(collection: String?)
    /// `io.puff.Error.NotInitialized`: no passcode set yet.
    case notInitialized
    /// `io.puff.Error.NoSuchCollection`: no visible collection by that id.
    case noSuchCollection(String?)
    /// `org.freedesktop.Secret.Error.NoSuchObject`: no such item or collection.
    case noSuchObject
    /// The vault has no collection marked default and none was named.
    case noDefaultCollection
    /// No visible item at this path or number; the text is the reference as given.
    case noSuchItem(String)
    /// No item has every attribute of `query`; `unsearched` names the locked private collections,
    /// whose items cannot be searched until they are unlocked.
    case noMatch(query: String, unsearched: [String])
    /// Several items have every attribute of `query`: the candidates, oldest first.
    case ambiguous(query: String, candidates: [ItemSummary])
    /// `copy` found no clipboard tool for this session; the text says what it looked for.
    case noClipboard(String)
    /// The clipboard tool failed; the text says how.
    case clipboardFailed(tool: String, detail: String)
    /// Writing to standard output failed with this `errno`.
    case outputFailed(errno: Int32)
    /// Connecting to the bus failed; the text is libdbus's explanation.
    case noBus(String)
    /// Nothing owns the bus name (`ServiceUnknown`, `NameHasNoOwner`) or its activation failed.
    case daemonNotRunning
    /// The name is owned, but not by puffd (its owner has no `/io/puff/Control`).
    case otherProvider(busName: String)
    /// puffd did not answer within the call's timeout.
    case noReply
    /// The bus connection closed before the answer came.
    case disconnected
    /// A change that weakens protection got no consent (`io.puff.Error.NotConfirmed`); the text
    /// says why.
    case notConfirmed(String)
    /// A slot change or slot unlock puffd refused for a reason of its own (`io.puff.Error.Hardware`,
    /// `LastSlot`, `WouldDropSlots`); the text is puffd's, which says what to do.
    case slotRefused(String)
    /// `io.puff.Error.NoSuchSlot`: no slot of that number, or none the credential given opens.
    case noSuchSlot(String)
    /// `io.puff.Error.SecurityKeyPIN`: the security key's PIN is needed, wrong or blocked.
    case securityKeyPIN(String)
    /// `io.puff.Error.Offline`: a fleet collection's OpenBao cannot be reached; the message names
    /// the collection and the address (docs/fleet.md).
    case offline(String)
    /// `doctor` found this many problems (FAIL); it printed them with their next steps.
    case checksFailed(Int)
    /// Another store's file (`import`) could not be read: a wrong password, damage, a format that
    /// does not fit; nothing was imported.
    case source(ForeignFormatError)
    /// The provider on the other bus of `import --bus` could not be read (no bus, no provider,
    /// a malformed or oversized reply); nothing was imported. The text says what.
    case liveSource(String)

    /// Maps an error reply (or local libdbus error) of a control call.
    ///
    /// - Parameters:
    ///   - error: What ``BusConnection/call(_:timeout:)`` threw.
    ///   - collection: The collection the call was about, for the message; `""` for hidden ones.
    public init(_ error: DBusError, collection: String? = nil, busName: String = ControlNames.busName) {
        switch error.name {
        case .puffWrongPasscode:
            self = .wrongPasscode(collection: collection, nextTryIn: Self.nextTry(in: error.message))
        case .puffIsLocked, .secretIsLocked: self = .locked(collection: collection)
        case .puffNotInitialized: self = .notInitialized
        case .puffNoSuchCollection: self = .noSuchCollection(collection)
        case .secretNoSuchObject: self = .noSuchObject
        case .puffAlreadyInitialized: self = .alreadyInitialized
        case .puffPasscodePolicy: self = .passcodePolicy(error.message)
        case .puffDamaged: self = .damaged(collection: collection)
        case .puffNotConfirmed: self = .notConfirmed(error.message)
        case .puffHardware, .puffLastSlot, .puffWouldDropSlots: self = .slotRefused(error.message)
        case .puffNoSuchSlot: self = .noSuchSlot(error.message)
        case .puffSecurityKeyPIN: self = .securityKeyPIN(error.message)
        case .puffOffline: self = .offline(error.message)
        case .accessDenied: self = .accessDenied
        case .serviceUnknown, .nameHasNoOwner: self = .daemonNotRunning
        // The name answers but has no control object: gnome-keyring, KeePassXC or oo7 own it.
        case .unknownObject, .unknownMethod, .unknownInterface: self = .otherProvider(busName: busName)
        case .noReply: self = .noReply
        case .disconnected: self = .disconnected
        default:
            // The bus daemon reports a failed activation as org.freedesktop.DBus.Error.Spawn.*.
            if error.name.rawValue.hasPrefix("org.freedesktop.DBus.Error.Spawn.") {
                self = .daemonNotRunning
            } else {
                self = .failed(name: error.name.rawValue, message: error.message)
            }
        }
    }

    /// The delay a wrong-passcode reply announces (`the next try is accepted in 2 s`): `2 s`.
    static func nextTry(in message: String) -> String? {
        guard let range = message.firstRange(of: "the next try is accepted in ") else { return nil }
        let rest = message[range.upperBound...]
        let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        guard !number.isEmpty, rest.dropFirst(number.count).hasPrefix(" s") else { return nil }
        return number + " s"
    }

    /// The status the process exits with.
    public var exitStatus: ExitStatus {
        switch self {
        case .usage, .noPasscodeSource, .emptyPasscode, .passcodeTooLong, .passcodesDiffer, .passcodeIOFailed,
            .alreadyInitialized, .passcodePolicy, .damaged, .accessDenied, .unexpectedReply, .failed, .noClipboard,
            .clipboardFailed, .outputFailed, .checksFailed, .notConfirmed, .slotRefused, .offline:
            .usage
        case .wrongPasscode, .source(.wrongPasscode), .securityKeyPIN: .wrongPasscode
        case .source, .liveSource: .usage
        case .locked, .notInitialized: .locked
        case .noSuchCollection, .noSuchObject, .noDefaultCollection, .noSuchItem, .noMatch, .ambiguous, .noSuchSlot:
            .notFound
        case .noBus, .daemonNotRunning, .otherProvider, .noReply, .disconnected: .noDaemon
        }
    }

    /// One line for stderr, without the `puffctl: ` prefix (``ambiguous(query:candidates:)`` adds
    /// one line per candidate). Never holds a passcode or a secret.
    public var message: String {
        switch self {
        case .usage(let text): text
        case .noPasscodeSource:
            "no terminal to ask for the passcode: pipe it in with --stdin or pass --passcode-fd N"
        case .emptyPasscode: "the passcode is empty"
        case .passcodeTooLong: "the passcode is longer than \(PasscodeReader.maximumLength) bytes"
        case .passcodesDiffer: "the passcodes did not match; nothing was changed"
        case .passcodeIOFailed(let code): "could not pass the passcode on (errno \(code))"
        case .alreadyInitialized: "the vault already has a passcode: change it with `puffctl passwd`"
        case .passcodePolicy(let reason):
            "\(reason.isEmpty ? "the passcode breaks the collection's policy" : reason); nothing was changed, "
                + "try again with one that fits"
        case .damaged(let collection):
            "\(Self.quoted(collection, or: "the collection")) is damaged: see `puffctl status`"
        case .accessDenied: "puffd refused the call: run puffctl as the user puffd runs as"
        case .unexpectedReply(let member):
            "puffd answered \(member) with an unexpected reply: are puffd and puffctl the same version?"
        case .failed(let name, let text): text.isEmpty ? "puffd failed: \(name)" : "puffd failed: \(text) (\(name))"
        case .wrongPasscode("", let next):
            "no hidden collection opens with that passcode" + (next.map { "; the next try is accepted in \($0)" } ?? "")
        case .wrongPasscode(let collection, let next?):
            "wrong passcode for \(Self.quoted(collection)); the next try is accepted in \(next)"
        case .wrongPasscode(let collection, nil): "wrong passcode for \(Self.quoted(collection)); try again"
        case .locked(let collection):
            if let collection, !collection.isEmpty {
                "'\(collection)' is locked: unlock it with `puffctl unlock \(collection)`"
            } else {
                "the collection is locked: unlock it with `puffctl unlock`"
            }
        case .notInitialized: "no passcode set: run `puffctl init`"
        case .noSuchCollection(let collection):
            "no collection \(Self.quoted(collection, or: "by that name")): see `puffctl collection list`"
        case .noSuchObject: "no such item or collection: see `puffctl list`"
        case .noDefaultCollection:
            "no default collection: name one, or choose one with `puffctl collection default C`"
        case .noSuchItem(let reference): "no item '\(reference)': see `puffctl list`"
        case .noMatch(let query, let unsearched):
            "no item matches \(query)" + Self.unsearchedNote(unsearched)
        case .ambiguous(let query, let candidates):
            "\(candidates.count) items match \(query); name one by its path (oldest first):\n"
                + ItemOutput.candidates(candidates)
        case .noClipboard(let detail): detail
        case .clipboardFailed(let tool, let detail): "\(tool) failed: \(detail)"
        case .outputFailed(let code): "could not write to standard output (errno \(code))"
        case .noBus(let detail): "cannot reach the session bus (\(detail)): is DBUS_SESSION_BUS_ADDRESS set?"
        case .daemonNotRunning:
            "puffd is not running: start it with `make run` or `systemctl --user start puffd`"
        case .otherProvider(let busName): "\(busName) is owned by another provider (not puffd); stop it first"
        case .noReply: "puffd did not answer in time: see `journalctl --user -u puffd`"
        case .disconnected: "the bus connection closed before puffd answered"
        case .notConfirmed(let reason): "not done: \(reason)"
        case .slotRefused(let reason), .noSuchSlot(let reason), .securityKeyPIN(let reason), .offline(let reason):
            reason
        case .source(.wrongPasscode): "the password does not open the source; nothing was imported"
        case .source(let error): "the source: \(error); nothing was imported"
        case .liveSource(let reason): "the provider on the other bus: \(reason); nothing was imported"
        case .checksFailed(let count): "doctor found \(count) problem\(count == 1 ? "" : "s"): see the next steps above"
        }
    }

    /// Why a search may have missed: the locked private collections it could not look inside.
    private static func unsearchedNote(_ collections: [String]) -> String {
        guard !collections.isEmpty else { return "" }
        let names = collections.map { "'\($0)'" }.joined(separator: ", ")
        let first = collections[0]
        return
            "; \(names) \(collections.count == 1 ? "is" : "are") locked and private, so \(collections.count == 1 ? "its" : "their")"
            + " items could not be searched: unlock with `puffctl unlock \(first)` and try again"
    }

    private static func quoted(_ collection: String?, or fallback: String = "the collection") -> String {
        guard let collection, !collection.isEmpty else { return fallback }
        return "'\(collection)'"
    }
}
