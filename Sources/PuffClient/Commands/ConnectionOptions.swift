// SPDX-License-Identifier: Apache-2.0
public import ArgumentParser
import PuffDBus

/// `--address` and `--bus-name`, which every command takes: where puffd is found.
public struct ConnectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Connect to the bus at ADDRESS instead of the session bus.", valueName: "ADDRESS"))
    public var address: String?

    @Option(help: ArgumentHelp("Talk to puffd's control interface under NAME.", valueName: "NAME"))
    public var busName = ControlNames.busName

    /// Creates the options with their defaults: the session bus and `io.puff.Control`.
    public init() {}

    public func validate() throws {
        guard BusName(busName) != nil else { throw ValidationError("'\(busName)' is not a valid bus name") }
    }

    /// Connects to the bus.
    ///
    /// - Throws: ``ClientError/noBus(_:)``.
    func connect() async throws(ClientError) -> ControlClient {
        try await ControlClient.connect(address: address, busName: busName)
    }
}

/// `--json`, which read commands take.
public struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON instead of a table.")
    public var json = false

    /// Creates the options with their default: a table.
    public init() {}
}
