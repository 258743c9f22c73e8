// SPDX-License-Identifier: Apache-2.0
public import ArgumentParser
import Glibc
import PuffDBus

/// `puffctl agent`: answers puffd's prompts in this terminal, over SSH or with no GUI at all.
public struct Agent: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Answer puffd's unlock prompts in this terminal until stopped.",
        discussion: """
            While it runs, an application that needs a locked collection makes puffd ask here: \
            the passcode is typed with echo off and reaches puffd through a pipe. The first \
            agent keeps its place: another one started later answers only if you say yes to it \
            here, and when it stops, the one before it answers again. The agent registers again \
            when puffd restarts, and drops a question whose prompt ended. Stop it with Ctrl-C.
            """)

    @OptionGroup var connection: ConnectionOptions

    public init() {}

    public func run() async throws {
        // An answer written after puffd gave up on the question (its pipe closed) must fail with
        // EPIPE, not end the agent.
        signal(SIGPIPE, SIG_IGN)
        let terminal = try AgentTerminal()
        let client = try await connection.connect()
        try await client.serveAgent(AgentService(terminal: terminal, puffd: client)) { again in
            terminal.show(
                again
                    ? "puffd started again; answering its prompts here.\n"
                    : "Answering puffd's prompts here; stop with Ctrl-C.\n")
        }
    }
}
