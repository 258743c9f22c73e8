// SPDX-License-Identifier: Apache-2.0
import Glibc
import Logging
import PuffCrypto

/// What `puffd` changes about its own process before it holds any secret.
enum ProcessHardening {
    /// Turns core dumps and same-user memory reads off (``ProcessProtection``), ignores `SIGXFSZ`
    /// so a write past the file size limit fails with `EFBIG` (answered with a D-Bus error)
    /// instead of killing the daemon, and ignores `SIGPIPE` so a write to a prompter that died
    /// (a pinentry whose terminal went away) fails with `EPIPE` instead of ending puffd with no
    /// log line. Children start with both back at their defaults (swift-subprocess resets them).
    static func apply(logger: Logger) {
        for step in ProcessProtection.forbidCoreDumps() {
            logger.warning("cannot turn core dumps off", metadata: ["step": "\(step)"])
        }
        signal(SIGXFSZ, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
    }
}
