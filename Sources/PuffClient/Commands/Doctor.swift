// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FoundationEssentials

/// `puffctl doctor`: why secrets might not reach puffd, and what to do about each problem.
struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find out why secrets might not reach puffd, and what to do about it.",
        discussion: """
            Looks at: the session bus (DBUS_SESSION_BUS_ADDRESS; SSH, WSL and containers); who \
            owns org.freedesktop.secrets and its executable, puffd or another provider \
            (gnome-keyring, KWallet, KeePassXC, oo7); the D-Bus activation files that name it, \
            which one the bus starts when nothing owns it and how to make that puffd; the vault \
            folder's owner and permissions; whether the vault is whole (collections puffd \
            reports damaged, each vault file's checksums read without a key, files that are not \
            regular files, journals that were cut), naming file and offset; with [store.openbao] in \
            puffd's configuration, its OpenBao as puffd sees it (reachable, token, policy on the fleet \
            paths, clock skew); which prompter \
            would answer an unlock prompt now; and whether this user can open /dev/tpmrm0, the TPM \
            of tpm2 slots (on Debian, group tss).

            Each check prints OK, WARN or FAIL, and every problem a next step. Exits 0 when no \
            check failed and 1 otherwise; WARN never fails. Starts nothing: the question to the \
            owner goes to its unique name.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let probe = DoctorProbe(connection: connection, environment: ProcessInfo.processInfo.environment)
        let report = await probe.report()
        Console.out(report.text)
        if report.failures > 0 { throw ClientError.checksFailed(report.failures) }
    }
}
