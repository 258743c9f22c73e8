// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffService

/// Opens, at start, every locked collection with a tpm2 slot that this machine's TPM unseals or a
/// transit slot OpenBao decrypts for this machine's token (docs/design/unlock-slots.md §3,
/// "Unlock order"; docs/fleet.md, "Transit slots"), after the credentials and `--unlock-fd` and
/// before the bus name is taken, so that the first client finds them open. No person is asked;
/// a TPM that is absent, replaced or measured differently, or an OpenBao that refuses or does not
/// answer, leaves its collections locked, as before, with a log line each (SecretService says
/// which and why) and never stops puffd.
enum HardwareUnlock {
    /// Tries every tpm2 and transit slot once.
    static func run(service: SecretService, logger: Logger) async {
        let opened = await service.unlockWithoutPerson()
        guard !opened.isEmpty else { return }
        logger.info(
            "Opened by a tpm2 or transit slot at start: \(opened.map(\.rawValue).joined(separator: ", "))")
    }
}
