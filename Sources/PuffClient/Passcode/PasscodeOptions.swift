// SPDX-License-Identifier: Apache-2.0
public import ArgumentParser
import PuffCrypto

/// `--stdin` and `--passcode-fd`, for commands that take one passcode. With neither, puffctl asks
/// on the terminal.
public struct PasscodeOptions: ParsableArguments {
    @Flag(name: .customLong("stdin"), help: "Read the passcode as one line of standard input.")
    public var readsStandardInput = false

    @Option(
        name: .customLong("passcode-fd"),
        help: ArgumentHelp("Read the passcode as one line of descriptor N.", valueName: "N")
    )
    public var descriptor: Int32?

    /// Creates the options with their defaults: the terminal.
    public init() {}

    /// Where the passcode comes from.
    public var source: PasscodeSource {
        if readsStandardInput { return .standardInput }
        if let descriptor { return .descriptor(descriptor) }
        return .terminal
    }

    public func validate() throws {
        if readsStandardInput, descriptor != nil { throw ValidationError("give --stdin or --passcode-fd, not both") }
        if let descriptor, descriptor < 0 {
            throw ValidationError("--passcode-fd needs a descriptor number (0 or more)")
        }
    }
}

/// `--stdin`, `--passcode-fd` and `--new-passcode-fd`, for `passwd`, which takes the current
/// passcode and a new one.
public struct PasscodeChangeOptions: ParsableArguments {
    @Flag(
        name: .customLong("stdin"),
        help: "Read the current passcode, then the new one, as two lines of standard input."
    )
    public var readsStandardInput = false

    @Option(
        name: .customLong("passcode-fd"),
        help: ArgumentHelp(
            "Read the current passcode as one line of descriptor N; the new one follows on the next line "
                + "unless --new-passcode-fd is given.",
            valueName: "N")
    )
    public var descriptor: Int32?

    @Option(
        name: .customLong("new-passcode-fd"),
        help: ArgumentHelp("Read the new passcode as one line of descriptor M.", valueName: "M")
    )
    public var newDescriptor: Int32?

    /// Creates the options with their defaults: both passcodes from the terminal.
    public init() {}

    /// Where the current passcode comes from.
    public var oldSource: PasscodeSource {
        if readsStandardInput { return .standardInput }
        if let descriptor { return .descriptor(descriptor) }
        return .terminal
    }

    /// Where the new passcode comes from: its own descriptor, or else the same place as the old.
    public var newSource: PasscodeSource {
        if let newDescriptor { return .descriptor(newDescriptor) }
        return oldSource
    }

    public func validate() throws {
        if readsStandardInput, descriptor != nil { throw ValidationError("give --stdin or --passcode-fd, not both") }
        for case let fd? in [descriptor, newDescriptor] where fd < 0 {
            throw ValidationError("a descriptor number is 0 or more, not \(fd)")
        }
    }
}
