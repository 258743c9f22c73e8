// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffConcurrency
import PuffCrypto
import PuffDBus
import PuffProtocol
import PuffService

/// A control method of the contract's `method` (``ControlContract/Method``), its inputs typed: the
/// router checks a call's signature, the inputs read the values, and the handler gets Swift
/// values. Its name and out arguments come from the contract; SecretRouterTests' control suite
/// checks the inputs against it.
func controlMethod(
    _ method: ControlContract.Method, _ body: @escaping @Sendable (MethodCall) async throws -> [DBusValue]
) -> Method {
    controlled(Method(method.member, out: method.outArguments, handler: body))
}

/// A control method of one typed input.
func controlMethod<A>(
    _ method: ControlContract.Method, in a: Input<A>,
    _ body: @escaping @Sendable (MethodCall, A) async throws -> [DBusValue]
) -> Method {
    controlled(Method(method.member, in: a, out: method.outArguments, handler: body))
}

/// A control method of two typed inputs.
func controlMethod<A, B>(
    _ method: ControlContract.Method, in a: Input<A>, _ b: Input<B>,
    _ body: @escaping @Sendable (MethodCall, A, B) async throws -> [DBusValue]
) -> Method {
    controlled(Method(method.member, in: a, b, out: method.outArguments, handler: body))
}

/// A control method of three typed inputs.
func controlMethod<A, B, C>(
    _ method: ControlContract.Method, in a: Input<A>, _ b: Input<B>, _ c: Input<C>,
    _ body: @escaping @Sendable (MethodCall, A, B, C) async throws -> [DBusValue]
) -> Method {
    controlled(Method(method.member, in: a, b, c, out: method.outArguments, handler: body))
}

/// A control method of four typed inputs.
func controlMethod<A, B, C, D>(
    _ method: ControlContract.Method, in a: Input<A>, _ b: Input<B>, _ c: Input<C>, _ d: Input<D>,
    _ body: @escaping @Sendable (MethodCall, A, B, C, D) async throws -> [DBusValue]
) -> Method {
    controlled(Method(method.member, in: a, b, c, d, out: method.outArguments, handler: body))
}

/// A control method of five typed inputs.
func controlMethod<A, B, C, D, E>(
    _ method: ControlContract.Method, in a: Input<A>, _ b: Input<B>, _ c: Input<C>, _ d: Input<D>, _ e: Input<E>,
    _ body: @escaping @Sendable (MethodCall, A, B, C, D, E) async throws -> [DBusValue]
) -> Method {
    controlled(Method(method.member, in: a, b, c, d, e, out: method.outArguments, handler: body))
}

/// `method` for its owner only, with the control interface's error names for a missing or locked
/// collection (dbus/io.puff.Control1.xml). The owner is checked before any argument is read.
private func controlled(_ method: Method) -> Method {
    Method(method.name, in: method.inputs, out: method.outputs) { call in
        try call.requireOwner()
        do {
            return try await method.handler(call)
        } catch ServiceError.noSuchObject {
            throw DBusError(.noSuchCollection, "no such collection")
        } catch ServiceError.isLocked {
            throw DBusError(.controlIsLocked, "the collection is locked: run puffctl unlock")
        }
    }
}

extension ControlContract.Method {
    /// The method's name on the bus.
    var member: MemberName { MemberName(stringLiteral: name) }
    /// Its out arguments as introspection shows them.
    var outArguments: [PuffDBus.Argument] {
        outputs.map { PuffDBus.Argument($0.name, Signature(stringLiteral: $0.signature)) }
    }
}

extension Input {
    /// An `a{st}`: the `after` cursor of `Audit`, collection id → sequence number.
    static func sequences(_ name: String) -> Input<[String: UInt64]> {
        Input<[String: UInt64]>(name, "a{st}") { value in
            guard case .dictionary(_, _, let entries) = value else { return nil }
            var cursor: [String: UInt64] = [:]
            for entry in entries {
                guard let key = entry.key.string, case .uint64(let sequence) = entry.value else { return nil }
                cursor[key] = sequence
            }
            return cursor
        }
    }
}

extension MethodCall {
    /// Refuses callers whose uid is not `puffd`'s own.
    func requireOwner() throws(ControlDenied) {
        guard context.uid == getuid() else { throw ControlDenied() }
    }

    /// The person's consent in a call's `options`: its `passcode` (h, a pipe) when given, else a
    /// confirmation through the prompter chain.
    func consent(_ options: [String: DBusValue]) async throws(ServiceError) -> Consent {
        guard let entry = options[ControlKey.passcode] else { return .confirmation }
        guard let descriptor = entry.unixFD else { throw .invalidArgument("passcode must be a pipe's descriptor (h)") }
        return .passcode(try await BlockingWork.run { () throws(ServiceError) in try PasscodePipe.read(descriptor) })
    }

    /// The passcode behind the pipe `descriptor`.
    func passcode(from descriptor: UnixFD) async throws(ServiceError) -> SecureBytes {
        // A writer may take up to the pipe's timeout: wait outside the cooperative pool, and
        // without holding a call slot.
        return try await CallSlot.released { () async throws(ServiceError) in
            try await BlockingWork.run { () throws(ServiceError) in try PasscodePipe.read(descriptor) }
        }
    }
}

/// A control call from another user.
struct ControlDenied: Error {}
