// SPDX-License-Identifier: Apache-2.0
import Glibc
import Logging
import PuffCrypto

/// What `puffd` changes about its own process before it holds any secret.
enum ProcessHardening {
    /// Turns core dumps and same-user memory reads off (``ProcessProtection``), and ignores
    /// `SIGXFSZ` so a write past the file size limit fails with `EFBIG` (answered with a D-Bus
    /// error) instead of killing the daemon.
    static func apply(logger: Logger) {
        for step in ProcessProtection.forbidCoreDumps() {
            logger.warning("cannot turn core dumps off", metadata: ["step": "\(step)"])
        }
        signal(SIGXFSZ, SIG_IGN)
    }
}
