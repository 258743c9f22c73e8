// SPDX-License-Identifier: Apache-2.0
import PuffService
import ServiceLifecycle
import UnixSignals

/// Locks every collection whenever the daemon gets `SIGUSR1`, so a script or a screen locker's
/// hook can lock Puff with `pkill -USR1 -x puffd`; the service logs each lock.
struct LockSignalService: Service, CustomStringConvertible {
    /// Trapping `SIGUSR1`; made before the bus name is taken, since the signal's default action
    /// ends the process.
    let signals: UnixSignalsSequence
    let service: SecretService

    var description: String { "LockSignalService" }

    func run() async {
        for await _ in signals.cancelOnGracefulShutdown() {
            // A signal while the vault loads locks what the load unlocked (kept keys).
            guard (try? await cancelWhenGracefulShutdown({ await service.vaultReady() })) == true else { return }
            await service.lockAll(reason: .signal)
        }
    }
}
