// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

extension PuffDaemon {
    /// puffd as a program: reads the command line, serves until stopped, and exits with the
    /// status of what went wrong (help and `--version` included). Called by `puffd`'s main and by
    /// puffctl's when it runs under the name `puffd` (one program, two names: issue 27 item 10).
    public static func runFromCommandLine() async {
        // Top-level code resolves `PuffDaemon.main()` and `run()` to ParsableCommand's synchronous
        // defaults, so parse here and call the daemon's async body by its own name.
        do {
            let command = try parseAsRoot()
            guard let daemon = command as? PuffDaemon else { throw CleanExit.helpRequest(command) }
            try await daemon.serve()
        } catch {
            exit(withError: error)
        }
    }
}
