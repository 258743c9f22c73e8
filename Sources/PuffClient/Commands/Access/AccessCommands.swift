// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffSystem

/// `puffctl access`: which executables may read which items (`[access] mode`).
struct AccessCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "access",
        abstract: "List, add and forget per-executable and per-app access rules of items.",
        discussion: """
            Under [access] mode = "ask", the first read of an item by an executable asks the \
            person: once, always or deny; "always" and "deny" become rules, kept sealed in the \
            item's collection. Under "strict", only executables with an allow rule read. A deny \
            rule refuses in every mode. The rules identify an executable by its path (and, with \
            hash_executables, its contents): defence in depth and an audit trail, not a boundary \
            against other processes of the same user (README, "Access rules").

            ITEM is an object path, COLLECTION/NUMBER, or attr=value pairs matching exactly one \
            item; EXECUTABLE is an absolute path, such as /usr/bin/secret-tool.

            A Flatpak app (talking to the Secret Service through xdg-dbus-proxy) is matched by \
            its app id alone: give --app ID instead of an EXECUTABLE. No executable rule applies \
            to it, and a caller whose sandbox puffd could not read is refused by any deny rule \
            and allowed by none.

            \(consent)
            """,
        subcommands: [ListAccess.self, AllowAccess.self, DenyAccess.self, RevokeAccess.self]
    )

    /// What the commands that weaken protection say about the person's consent.
    static let consent = """
        A change that lets more reads through (allow, revoking a deny, unprotect) needs you: \
        puffd asks through its prompter (puffctl agent or pinentry), or give the collection's \
        passcode with --stdin, --passcode-fd or --ask-passcode. With nobody to ask and no \
        passcode it is refused. Every change is recorded in the audit log.
        """
}

/// `puffctl access list [ITEM] [--json]`.
struct ListAccess: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show items' protection and access rules, never their secrets.",
        discussion: "With no ITEM, lists every item that has any, in the collections open since puffd started."
    )

    @OptionGroup var item: ItemArguments
    @OptionGroup var output: OutputOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let entries: [AccessEntry]
        if item.item.isEmpty {
            entries = try await connection.connect().listAccess([])
        } else {
            let (resolved, client) = try await item.resolve(connection)
            entries = try await client.listAccess([resolved.item.path])
        }
        Console.out(output.json ? JSONOutput.encode(entries) : AccessOutput.text(entries))
    }
}

/// `puffctl access allow ITEM EXECUTABLE|--app ID`.
struct AllowAccess: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "allow",
        abstract: "Let an executable or app read an item without being asked (what \"always\" answers).",
        discussion: AccessCommands.consent
    )

    @OptionGroup var arguments: AccessArguments
    @OptionGroup var consent: ConsentOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await AccessRuleChange.apply(allows: true, arguments, connection, consent: consent)
    }
}

/// `puffctl access deny ITEM EXECUTABLE|--app ID`.
struct DenyAccess: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deny",
        abstract: "Refuse an executable or app an item in every mode (what \"deny\" answers)."
    )

    @OptionGroup var arguments: AccessArguments
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await AccessRuleChange.apply(allows: false, arguments, connection)
    }
}

/// `puffctl access revoke ITEM [EXECUTABLE|--app ID]`.
struct RevokeAccess: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract:
            "Forget an executable's or app's rule for an item (every rule with neither): it is asked again.",
        discussion: AccessCommands.consent
    )

    @OptionGroup var arguments: AccessArguments
    @OptionGroup var consent: ConsentOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let subject = try arguments.subject()
        let (resolved, client) = try await arguments.resolve(connection)
        let passcode = try consent.passcode(of: resolved.collection.id)
        switch subject {
        case .app(let app):
            try await client.revokeAppAccess(item: resolved.item.path, app: app.rawValue, passcode: passcode)
        case .executable(let executable):
            try await client.revokeAccess(item: resolved.item.path, executable: executable, passcode: passcode)
        case nil:
            try await client.revokeAccess(item: resolved.item.path, executable: nil, passcode: passcode)
        }
        Console.out("revoked \(subject?.description ?? "every rule") for \(resolved.name)")
    }
}

/// `allow` and `deny`: one rule for one executable or app.
enum AccessRuleChange {
    static func apply(
        allows: Bool, _ arguments: AccessArguments, _ connection: ConnectionOptions, consent: ConsentOptions? = nil
    ) async throws(ClientError) {
        guard let subject = try arguments.subject() else {
            throw .usage(
                "name the executable by its absolute path after ITEM, such as /usr/bin/secret-tool, or an app by --app ID"
            )
        }
        let (resolved, client) = try await arguments.resolve(connection)
        let passcode = try consent?.passcode(of: resolved.collection.id)
        switch subject {
        case .executable(let executable):
            try await client.setAccess(allows, for: executable, item: resolved.item.path, passcode: passcode)
        case .app(let app):
            try await client.setAppAccess(allows, for: app.rawValue, item: resolved.item.path, passcode: passcode)
        }
        Console.out("\(allows ? "allowed" : "denied") \(subject) for \(resolved.name)")
    }
}

/// How `access list` prints for people: one row per rule (or per item without rules).
enum AccessOutput {
    static func text(_ entries: [AccessEntry]) -> String {
        guard !entries.isEmpty else { return "no access settings" }
        var table = TextTable("ITEM", "LABEL", "PROTECTED", "CALLER", "DECISION")
        for entry in entries {
            let protected = entry.protected ? "yes" : "no"
            guard !entry.rules.isEmpty else {
                table.append(entry.path, entry.label, protected, "-", "-")
                continue
            }
            for rule in entry.rules {
                let decision = rule.digest == nil ? rule.decision : "\(rule.decision) (contents bound)"
                table.append(
                    entry.path, entry.label, protected, rule.app.map { "app \($0)" } ?? rule.executable, decision)
            }
        }
        return table.rendered
    }
}
