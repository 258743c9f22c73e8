// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffDBus
import PuffFormats
import PuffProtocol
import PuffTesting
import Synchronization

/// The keys of `io.puff.Control1`'s records, from the wire contract.
private typealias Key = ControlContract.Key

/// A stand-in for puffd's control object on a private bus: serves `io.puff.Control1` at
/// `/io/puff/Control` with the signatures of the interface file (the router refuses any call of
/// another shape with `InvalidArgs`), records each call with the passcodes read from its
/// descriptors, and answers from a script.
final class FakeControl: Sendable {
    /// One call as the fake received it.
    struct Call: Sendable {
        var member: String
        /// The call's `s` and `as` arguments, flattened in order.
        var strings: [String]
        /// The bytes read from each `h` argument, in order.
        var passcodes: [String]
        /// The boolean `a{sv}` options of `CreateCollection`.
        var flags: [String: Bool]
        /// The `policy` option of `Init` or `CreateCollection`.
        var policy: String?
        /// The `min_length` option of `Init` or `CreateCollection`.
        var minimumLength: UInt32?
    }

    /// The bus name the fake owns, passed to puffctl with `--bus-name`.
    static let busName = "io.puff.Test.Control"

    let bus: TestBus
    private let server: BusConnection
    private let serving: Task<Void, Never>
    private let recorder = Recorder()

    /// The address clients pass with `--address`.
    var address: String { bus.address }

    /// Everything called so far.
    var calls: [Call] { recorder.state.withLock { $0.calls } }

    /// Starts a bus and serves the control object on it; with `servesControl` false the name is
    /// owned but nothing is served, as when another Secret Service provider owns it.
    init(servesControl: Bool = true) async throws {
        bus = try TestBus()
        server = try await BusConnection.connect(address: bus.address)
        _ = try await server.requestName(BusName(Self.busName)!, replace: false)
        let interface = try Self.interface(recorder: recorder)
        let router = Router(tree: Tree(interface: servesControl ? interface : nil)) { error in
            DBusError(.failed, "\(error)")
        }
        let server = self.server
        serving = Task {
            await ObjectServer(connection: server, router: router, callers: CallerDirectory(connection: server)).run()
        }
    }

    deinit {
        serving.cancel()
        server.close()
    }

    /// Makes `member` answer with `body` from now on.
    func reply(to member: String, with body: [DBusValue]) {
        recorder.state.withLock { $0.replies[member] = .success(body) }
    }

    /// Makes `member` fail with the error `name` from now on.
    func fail(_ member: String, with name: String) {
        recorder.state.withLock { $0.replies[member] = .failure(DBusError(ErrorName(name)!, "scripted")) }
    }

    /// A well-typed answer per method, as the interface file gives the `out` arguments.
    static let defaultReplies: [String: [DBusValue]] = [
        "Status": Replies.twoCollections,
        "Unlock": [.string("login")],
        "CreateCollection": [.string("new")],
        "Compact": [.uint64(4096)],
        "Backup": [
            Replies.dictionary([
                (Key.files, .uint32(7)), (Key.collections, .uint32(2)),
                (Key.bytes, .uint64(9000)), (Key.items, .uint64(5)), (Key.unknown, .uint32(1)),
            ])
        ],
        "Restore": [
            Replies.dictionary([
                (Key.files, .uint32(7)), (Key.collections, .uint32(2)), (Key.bytes, .uint64(9000)),
                (Key.snapshot, .string("/v/snapshots/x-restore.puffbak")), (Key.restored, .strings(["login"])),
            ])
        ],
        "Verify": [
            .array(
                element: "a{sv}",
                [
                    Replies.dictionary([
                        (Key.file, .string("/v/j")), (Key.offset, .uint64(40)), (Key.what, .string("bad")),
                    ])
                ]),
            .strings(["login"]), .uint64(12), .strings(["work"]),
        ],
        "Repair": [
            .uint64(3), .strings(["j is damaged at offset 40: record checksum does not match"]), .string("j.damaged-1"),
        ],
        "DeleteCollection": [
            Replies.dictionary([
                (Key.id, .string("work")), (Key.items, .uint32(2)), (Key.keptDays, .uint32(7)),
            ])
        ],
        "DeletedCollections": [.array(element: "a{sv}", [])],
        "RestoreCollection": [.string("work")],
        "AttachCollection": [.string("team")],
        "CheckStore": [
            .array(
                element: "a{sv}",
                [
                    Replies.dictionary([
                        (Key.check, .string("policy")), (Key.outcome, .string("fail")),
                        (Key.summary, .string("the token's policy lacks create on secret/data/puff/*")),
                        (Key.details, .strings(["create on secret/data/puff/* (entries)\u{1B}[2J"])),
                        (Key.next, .string("add to the token's policy:\npath \"secret/data/puff/*\" {}")),
                    ])
                ])
        ],
        "ListSlots": [
            .array(
                element: "a{sv}",
                [
                    Replies.dictionary([
                        (Key.id, .uint16(1)), (Key.type, .string("passcode")), (Key.label, .string("passcode")),
                    ]),
                    Replies.dictionary([
                        (Key.id, .uint16(3)), (Key.type, .string("tpm2")), (Key.label, .string("laptop")),
                        (Key.pcrs, .uint32(0x880)),
                    ]),
                ])
        ],
        "AddSlot": [.uint16(4)],
        "UnlockWith": [.string("login")],
        "ListItems": [
            .array(
                element: "a{sv}", [Replies.dictionary([(Key.path, .objectPath(ObjectPath("/i/1")!))])])
        ],
        "Audit": Replies.audit,
        "MoveItem": [.objectPath(ObjectPath("/i/2")!)],
        "ImportItems": [
            .array(
                element: "a{sv}",
                [
                    Replies.dictionary([
                        (Key.outcome, .string("added")), (Key.index, .uint32(0)), (Key.label, .string("mail")),
                        (Key.reason, .string("")), (Key.path, .objectPath(ObjectPath("/i/3")!)),
                    ])
                ])
        ],
        "ExportItems": [
            Replies.dictionary([
                (Key.label, .string("Work")), (Key.created, .uint64(100)), (Key.modified, .uint64(200)),
                (Key.items, .uint32(1)),
            ]),
            .array(
                element: "a{sv}",
                [
                    Replies.dictionary([
                        (Key.path, .objectPath(ObjectPath("/i/4")!)), (Key.label, .string("kept")),
                        (Key.reason, .string("declined")),
                    ])
                ]),
        ],
        "ListAccess": [
            .array(
                element: "a{sv}",
                [
                    Replies.dictionary([
                        (Key.path, .objectPath(ObjectPath("/i/1")!)), (Key.label, .string("mail")),
                        (Key.protected, .boolean(true)),
                        (
                            "rules",
                            .array(
                                element: "a{sv}",
                                [
                                    Replies.dictionary([
                                        (Key.executable, .string("/usr/bin/secret-tool")), (Key.allow, .boolean(false)),
                                        (Key.digest, .string("")),
                                    ]),
                                    Replies.dictionary([
                                        (Key.executable, .string("")), (Key.allow, .boolean(true)),
                                        (Key.digest, .string("")), (Key.app, .string("org.example.App")),
                                    ]),
                                ])
                        ),
                    ])
                ])
        ],
    ]

    private static func interface(recorder: Recorder) throws -> Interface {
        let methods = try ControlInterfaceFile.methods().map { shape in
            Method(
                MemberName(shape.name)!, in: arguments(shape.input), out: arguments(shape.output)
            ) { call in
                let recorded = record(shape.name, call.arguments)
                let scripted = recorder.state.withLock { state in
                    state.calls.append(recorded)
                    return state.replies[shape.name]
                }
                return try scripted?.get() ?? defaultReplies[shape.name] ?? []
            }
        }
        return Interface("io.puff.Control1", methods: methods)
    }

    /// One argument per complete type in `signature`.
    private static func arguments(_ signature: String) -> [Argument] {
        var arguments: [Argument] = []
        var rest = Substring(signature)
        while !rest.isEmpty {
            let end = completeTypeEnd(rest)
            arguments.append(Argument("arg\(arguments.count)", Signature(String(rest[..<end]))!))
            rest = rest[end...]
        }
        return arguments
    }

    private static func completeTypeEnd(_ signature: Substring) -> Substring.Index {
        var depth = 0
        var index = signature.startIndex
        while index < signature.endIndex {
            let character = signature[index]
            index = signature.index(after: index)
            switch character {
            case "a": continue
            case "(", "{": depth += 1
            case ")", "}": depth -= 1
            default: break
            }
            if depth == 0 { return index }
        }
        return index
    }

    private static func record(_ member: String, _ arguments: [DBusValue]) -> Call {
        var call = Call(member: member, strings: [], passcodes: [], flags: [:])
        for argument in arguments {
            switch argument {
            case .string(let value): call.strings.append(value)
            case .array(_, let values): call.strings += values.compactMap(\.string)
            case .unixFD(let fd) where member == "ExportItems": writeExport(to: fd.rawValue)
            // AddSlot's recovery pipe: the write end gets a code, as puffd writes one.
            case .unixFD(let fd) where fcntl(fd.rawValue, F_GETFL) & O_ACCMODE == O_WRONLY:
                _ = Self.recoveryCode.withCString { write(fd.rawValue, $0, strlen($0)) }
                call.passcodes.append("")
            case .unixFD(let fd): call.passcodes.append(readToEnd(fd.rawValue))
            case .dictionary:
                for (key, value) in argument.variantDictionary ?? [:] {
                    switch (key, value) {
                    case (Key.policy, .string(let name)): call.policy = name
                    case (Key.minimumLength, .uint32(let length)): call.minimumLength = length
                    default: call.flags[key] = value.bool
                    }
                }
            default: break
            }
        }
        return call
    }

    /// The code the fake's `AddSlot` writes into a recovery pipe.
    static let recoveryCode = "000G-40R4-0M30-E209-185G-R38E-1W81-24GK\n"

    /// What the fake's `ExportItems` hands over: one item, `mail` with the secret `s`.
    private static func writeExport(to fd: Int32) {
        struct Output: PortableBatch.Output {
            let fd: Int32
            mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
                guard Glibc.write(fd, bytes.baseAddress!, bytes.count) == bytes.count else { throw Errno(errno) }
            }
        }
        struct Errno: Error {
            let code: Int32
            init(_ code: Int32) { self.code = code }
        }
        var output = Output(fd: fd)
        let item = PortableItem(
            label: "mail", attributes: ["user": "a"], secret: SecureBytes(unwipedCopyOf: Array("s".utf8)))
        try? PortableBatch.write([item], to: &output)
    }

    private static func readToEnd(_ fd: Int32) -> String {
        String(decoding: (try? Descriptors.readToEnd(fd)) ?? [], as: UTF8.self)
    }

    /// The calls so far and the scripted answers, shared with the method handlers.
    private final class Recorder: Sendable {
        let state = Mutex<(calls: [Call], replies: [String: Result<[DBusValue], DBusError>])>(([], [:]))
    }

    private struct Tree: ObjectTree {
        let interface: Interface?

        func resolve(_ path: ObjectPath, context: CallContext) async -> ResolvedObject? {
            guard let interface, path.rawValue == "/io/puff/Control" else { return nil }
            return ResolvedObject(interfaces: [interface], object: "control")
        }

        func children(of path: ObjectPath, context: CallContext) async -> [String] { [] }
    }
}
