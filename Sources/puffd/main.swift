// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffDaemon

// Top-level code resolves `PuffDaemon.main()` and `run()` to ParsableCommand's synchronous
// defaults, so parse here and call the daemon's async body by its own name.
do {
    let command = try PuffDaemon.parseAsRoot()
    guard let daemon = command as? PuffDaemon else { throw CleanExit.helpRequest(command) }
    try await daemon.serve()
} catch {
    PuffDaemon.exit(withError: error)
}
