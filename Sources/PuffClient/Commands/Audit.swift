// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Glibc

/// `puffctl audit [--since TIME] [--collection C] [--json]`: who read or changed which item.
struct Audit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Show the audit log: who read or changed which item, when, and how it ended; never secrets.",
        discussion: """
            Every secret read and item change is logged per collection, sealed under that \
            collection's key: a locked collection's log cannot be read, and is named on standard \
            error (exit status 3 when --collection names it). CALLER is the executable puffd saw, \
            else the caller's bus name; for a Flatpak app it is the app's id and what carried its \
            call, such as org.example.App (via /usr/bin/xdg-dbus-proxy). Any process of the same \
            user can pose as another executable or app, so this is an audit trail, not a proof.
            """
    )

    @Option(
        help: ArgumentHelp(
            "Only entries made at or after TIME: an ISO 8601 date or time (2024-05-01, 2024-05-01T09:30, local unless it ends in Z or +02:00), or an age (30m, 12h, 2d, 1w).",
            valueName: "TIME"))
    var since: String?

    @Option(help: ArgumentHelp("Show only the collection with id C.", valueName: "C"))
    var collection: String?

    @OptionGroup var output: OutputOptions
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if let since, AuditTime.seconds(since, now: 0) == nil {
            throw ValidationError("--since takes a date such as 2024-05-01T09:30 or an age such as 2d, not '\(since)'")
        }
    }

    func run() async throws {
        let start = since.flatMap { AuditTime.seconds($0, now: UInt64(max(0, time(nil)))) } ?? 0
        let client = try await connection.connect()
        let reply = try await client.audit(since: start, collection: collection ?? "")
        if let collection, reply.unreadable[collection] == "locked" { throw ClientError.locked(collection: collection) }
        Console.out(output.json ? AuditOutput.json(reply) : AuditOutput.text(reply))
        if !output.json { AuditOutput.notes(reply).forEach(Console.error) }
    }
}
