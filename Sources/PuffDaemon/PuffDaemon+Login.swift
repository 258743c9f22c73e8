// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Glibc
import Logging
import PuffCrypto
import PuffDBus
import PuffService
import PuffServiceBus
import PuffStore
import ServiceLifecycle
import UnixSignals

/// The login socket and the hand-over of `--unlock-fd` to the puffd that already serves the vault.
extension PuffDaemon {
    /// The folder of the login socket, unless there is none.
    func loginSocketFolder(_ settings: DaemonConfiguration, environment: [String: String]) -> String? {
        guard loginSocket != "none", !settings.isEphemeral else { return nil }
        return loginSocket ?? environment["XDG_RUNTIME_DIR"].map { $0 + "/puff" }
    }

    /// Hands the passcode on `fd` to the puffd holding the vault (``LoginForward``).
    func forwardUnlock(from fd: Int32, toSocketIn folder: String, logger: Logger) async {
        let read = await BlockingWork.result { () throws(LoginRequest.Failure) in
            try StartupUnlock.readPasscode(from: fd)
        }
        guard case .success(let passcode) = read, passcode.count > 0 else { return }
        let reply = await BlockingWork.run { LoginForward.send(passcode, toSocketIn: folder) }
        logger.notice(
            "Handed the passcode from --unlock-fd to the puffd that serves the vault",
            metadata: ["reply": "\(reply.map { String($0) } ?? "none")"])
    }

    /// The login socket's listener (docs/pam.md): on the socket systemd passed (`puff-login.socket`),
    /// else on one puffd makes, unless turned off or impossible; a socket that cannot be made is a
    /// warning, not a reason to stop.
    func loginListener(
        _ settings: DaemonConfiguration, activation: SocketActivation.Outcome, environment: [String: String],
        service: SecretService, logger: Logger
    ) -> LoginListener? {
        guard !settings.isEphemeral else { return nil }
        switch activation {
        case .login(let fd, let path):
            logger.info("The login socket came from systemd (socket activation)", metadata: ["socket": "\(path)"])
            return LoginListener(socket: LoginSocket(adopting: fd, path: path), service: service, logger: logger)
        case .ignored(let why):
            logger.warning("Not taking the sockets passed at start: \(why)")
        case .none:
            break
        }
        guard let folder = loginSocketFolder(settings, environment: environment) else {
            guard loginSocket != "none" else { return nil }
            logger.info("No XDG_RUNTIME_DIR: no login socket, so the PAM module cannot unlock at login")
            return nil
        }
        do {
            return LoginListener(socket: try LoginSocket(folder: folder), service: service, logger: logger)
        } catch {
            logger.warning("No login socket: \(error)")
            return nil
        }
    }
}
