// SPDX-License-Identifier: Apache-2.0

/// One typed input of a method: its name, its signature and how its value is read. The router
/// checks a call's signature against the method's before any handler runs, so the handler gets
/// its arguments as Swift values, read once here, and never checks a type again.
public struct Input<Value: Sendable>: Sendable {
    /// The argument as introspection shows it.
    public let argument: Argument
    private let read: @Sendable (DBusValue) -> Value?

    /// An input named `name` of `signature`, read by `read` (nil only for a value the signature
    /// check lets through that `read` does not take: a table bug).
    public init(_ name: String, _ signature: Signature, read: @escaping @Sendable (DBusValue) -> Value?) {
        argument = Argument(name, signature)
        self.read = read
    }

    /// The value of `value`.
    ///
    /// - Throws: `InvalidArgs` when the value is not what the signature promised.
    func value(of value: DBusValue) throws(DBusError) -> Value {
        guard let typed = read(value) else {
            throw DBusError(.invalidArgs, "\(argument.name) is not \(argument.signature.rawValue)")
        }
        return typed
    }
}

extension Input {
    /// An `s`.
    public static func string(_ name: String) -> Input<String> { Input<String>(name, "s", read: { $0.string }) }
    /// A `b`.
    public static func bool(_ name: String) -> Input<Bool> { Input<Bool>(name, "b", read: { $0.bool }) }
    /// An `o`.
    public static func objectPath(_ name: String) -> Input<ObjectPath> {
        Input<ObjectPath>(name, "o", read: { $0.objectPath })
    }
    /// An `ao`.
    public static func objectPaths(_ name: String) -> Input<[ObjectPath]> {
        Input<[ObjectPath]>(name, "ao", read: { $0.objectPaths })
    }
    /// An `as`.
    public static func strings(_ name: String) -> Input<[String]> {
        Input<[String]>(name, "as") { value in value.elements.map { $0.compactMap(\.string) } }
    }
    /// An `a{ss}`.
    public static func stringDictionary(_ name: String) -> Input<[String: String]> {
        Input<[String: String]>(name, "a{ss}", read: { $0.stringDictionary })
    }
    /// An `a{sv}`, the variants unwrapped.
    public static func variantDictionary(_ name: String) -> Input<[String: DBusValue]> {
        Input<[String: DBusValue]>(name, "a{sv}", read: { $0.variantDictionary })
    }
    /// A `v`, unwrapped.
    public static func variant(_ name: String) -> Input<DBusValue> {
        Input<DBusValue>(name, "v", read: { $0.variantContents })
    }
    /// An `h`.
    public static func unixFD(_ name: String) -> Input<UnixFD> { Input<UnixFD>(name, "h", read: { $0.unixFD }) }
    /// A `q`.
    public static func uint16(_ name: String) -> Input<UInt16> { Input<UInt16>(name, "q", read: { $0.uint16 }) }
    /// A `u`.
    public static func uint32(_ name: String) -> Input<UInt32> { Input<UInt32>(name, "u", read: { $0.uint32 }) }
    /// A `t`.
    public static func uint64(_ name: String) -> Input<UInt64> {
        Input<UInt64>(name, "t") { value in if case .uint64(let number) = value { number } else { nil } }
    }
}

extension Method {
    /// A method of one typed input.
    public init<A>(
        _ name: MemberName, in a: Input<A>, out outputs: [Argument] = [],
        handler: @escaping @Sendable (MethodCall, A) async throws -> [DBusValue]
    ) {
        self.init(name, in: [a.argument], out: outputs) { call in
            try Self.arity(call, 1)
            return try await handler(call, try a.value(of: call.arguments[0]))
        }
    }

    /// A method of two typed inputs.
    public init<A, B>(
        _ name: MemberName, in a: Input<A>, _ b: Input<B>, out outputs: [Argument] = [],
        handler: @escaping @Sendable (MethodCall, A, B) async throws -> [DBusValue]
    ) {
        self.init(name, in: [a.argument, b.argument], out: outputs) { call in
            try Self.arity(call, 2)
            return try await handler(call, try a.value(of: call.arguments[0]), try b.value(of: call.arguments[1]))
        }
    }

    /// A method of three typed inputs.
    public init<A, B, C>(
        _ name: MemberName, in a: Input<A>, _ b: Input<B>, _ c: Input<C>, out outputs: [Argument] = [],
        handler: @escaping @Sendable (MethodCall, A, B, C) async throws -> [DBusValue]
    ) {
        self.init(name, in: [a.argument, b.argument, c.argument], out: outputs) { call in
            try Self.arity(call, 3)
            return try await handler(
                call, try a.value(of: call.arguments[0]), try b.value(of: call.arguments[1]),
                try c.value(of: call.arguments[2]))
        }
    }

    /// A method of four typed inputs.
    public init<A, B, C, D>(
        _ name: MemberName, in a: Input<A>, _ b: Input<B>, _ c: Input<C>, _ d: Input<D>, out outputs: [Argument] = [],
        handler: @escaping @Sendable (MethodCall, A, B, C, D) async throws -> [DBusValue]
    ) {
        self.init(name, in: [a.argument, b.argument, c.argument, d.argument], out: outputs) { call in
            try Self.arity(call, 4)
            let arguments = call.arguments
            return try await handler(
                call, try a.value(of: arguments[0]), try b.value(of: arguments[1]), try c.value(of: arguments[2]),
                try d.value(of: arguments[3]))
        }
    }

    /// A method of five typed inputs.
    public init<A, B, C, D, E>(
        _ name: MemberName, in a: Input<A>, _ b: Input<B>, _ c: Input<C>, _ d: Input<D>, _ e: Input<E>,
        out outputs: [Argument] = [],
        handler: @escaping @Sendable (MethodCall, A, B, C, D, E) async throws -> [DBusValue]
    ) {
        self.init(name, in: [a.argument, b.argument, c.argument, d.argument, e.argument], out: outputs) { call in
            try Self.arity(call, 5)
            let arguments = call.arguments
            return try await handler(
                call, try a.value(of: arguments[0]), try b.value(of: arguments[1]), try c.value(of: arguments[2]),
                try d.value(of: arguments[3]), try e.value(of: arguments[4]))
        }
    }

    // A handler called directly (a test) may get fewer values than the router would pass.
    private static func arity(_ call: MethodCall, _ count: Int) throws(DBusError) {
        guard call.arguments.count == count else {
            throw DBusError(.invalidArgs, "expected \(count) arguments, got \(call.arguments.count)")
        }
    }
}

extension Property {
    /// A read-write property whose new value arrives typed.
    public init<Value>(
        _ name: String, _ type: Input<Value>, get: @escaping @Sendable (MethodCall) async throws -> DBusValue,
        set: @escaping @Sendable (MethodCall, Value) async throws -> Void
    ) {
        self.init(name, type.argument.signature, get: get) { call, value in
            try await set(call, try type.value(of: value))
        }
    }
}
