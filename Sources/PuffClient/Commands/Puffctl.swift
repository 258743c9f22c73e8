// SPDX-License-Identifier: Apache-2.0
public import ArgumentParser
import Glibc
import PuffVersion

/// `puffctl`, the companion command line of puffd: passcodes, locking, status and collections,
/// over puffd's private `io.puff.Control1` interface on the session bus.
public struct Puffctl: AsyncParsableCommand {
    /// The root command's description and its subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "puffctl",
        abstract: "Control puffd, the Puff Secret Service daemon.",
        discussion: """
            Passcodes are never taken as arguments: puffctl asks on the terminal with echo off, \
            or reads one line per passcode from standard input (--stdin) or a descriptor \
            (--passcode-fd N).

            Exit status: 0 done; 1 bad usage or input, a failed doctor check, or another failure; \
            2 wrong passcode, recovery code or security key PIN; 3 locked, or no passcode set yet \
            (get and copy on a locked collection); 4 no such collection, item or slot, or ITEM's attributes match no item or \
            several (show, get and copy list them, oldest first); 5 puffd cannot be reached (no \
            bus, not running, or another provider owns org.freedesktop.secrets). copy exits with 1 \
            when no clipboard tool (wl-copy, xclip, xsel) is present.
            """,
        version: PuffVersion.current,
        subcommands: [
            Initialize.self, Unlock.self, Lock.self, ChangePasscode.self, Status.self, ListItems.self,
            CollectionCommands.self, SlotCommands.self, Compact.self, Repair.self, Agent.self, Doctor.self,
            ShowItem.self, GetItem.self, CopyItem.self, ClearClipboard.self, Audit.self, ProtectItem.self,
            UnprotectItem.self,
            AccessCommands.self, AddItem.self, EditItem.self, RemoveItem.self, MoveItem.self, SearchItems.self,
            Generate.self, BackupVault.self, RestoreVault.self, VerifyVault.self, ImportCommand.self,
            ExportCommand.self,
        ]
    )

    /// Creates the root command; it only dispatches to subcommands.
    public init() {}

    /// Runs puffctl with the process's arguments and exits with its ``ExitStatus``.
    ///
    /// Replaces ArgumentParser's `main()`, which exits with 64 on a usage error; puffctl's
    /// statuses are those of ``ExitStatus``.
    public static func main() async {
        Glibc.exit(await run(arguments: Array(CommandLine.arguments.dropFirst())))
    }

    /// Parses `arguments`, runs the command, prints any failure as one line on standard error and
    /// returns the exit status.
    public static func run(arguments: [String]) async -> Int32 {
        do {
            var command = try await asyncParseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return ExitStatus.success.rawValue
        } catch {
            return report(error)
        }
    }

    /// Prints `error` and returns its exit status: the one place failures become statuses.
    static func report(_ error: any Error) -> Int32 {
        if let error = error as? ClientError {
            Console.error("puffctl: \(error.message)")
            return error.exitStatus.rawValue
        }
        // ArgumentParser's own: --help and --version exit cleanly; everything else is usage.
        let text = fullMessage(for: error)
        if exitCode(for: error) == .success {
            if !text.isEmpty { Console.out(text) }
            return ExitStatus.success.rawValue
        }
        if !text.isEmpty { Console.error(text) }
        return ExitStatus.usage.rawValue
    }
}
