// SPDX-License-Identifier: Apache-2.0
import Glibc
import Logging
import PuffService
import ServiceLifecycle
import Synchronization

/// Serves the login socket: the PAM module's session stage hands over the login password, which
/// opens (or on first login creates) the `login` collection; its password stage hands over the
/// old and the new one (docs/pam.md).
///
/// Only root (the PAM stack) and the user itself may connect, and only root is believed to be the
/// PAM module: its login may create `login` or start the re-sync question, its change moves
/// `login`'s login slot to the new password. A process of the user itself may only try to unlock an existing `login`, with the
/// wrong-passcode delay of any unlock (docs/pam.md): otherwise it could send a password of its
/// choosing and have the person's answer to the re-sync question re-key `login` to it. Each
/// request must arrive whole within ``readMilliseconds``; the answer is one status byte
/// (``Reply``). No password is logged.
struct LoginListener: Service, CustomStringConvertible {
    /// The status byte answered.
    enum Reply: UInt8 {
        case unlocked = 0
        case created = 1
        case wrongPassword = 2
        case refused = 3
        case failed = 4
    }

    /// How long a client may take to send its whole request.
    static let readMilliseconds: Int32 = 5000
    /// Connections served at once; more wait in the listen backlog.
    static let concurrentConnections = 4

    let socket: LoginSocket
    let service: SecretService
    let logger: Logger

    var description: String { "LoginListener" }

    func run() async {
        // A password that came while the vault loads waits in the socket's backlog.
        guard (try? await cancelWhenGracefulShutdown({ await service.vaultReady() })) == true else { return }
        logger.info("Listening for login passwords", metadata: ["socket": "\(socket.path)"])
        let stopped = Atomic<Bool>(false)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                // A graceful shutdown sets `stopped`; a failing service (the bus name taken)
                // cancels the group instead, which must end the loop too.
                while !stopped.load(ordering: .relaxed), !Task.isCancelled {
                    let socket = self.socket
                    guard let connection = await BlockingWork.run({ socket.accept(within: 200) }) else { continue }
                    if running >= Self.concurrentConnections {
                        await group.next()
                        running -= 1
                    }
                    running += 1
                    group.addTask { await self.serve(connection) }
                }
            }
        } onGracefulShutdown: {
            stopped.store(true, ordering: .relaxed)
        }
    }

    /// Reads one request from `connection`, carries it out and answers.
    func serve(_ connection: Int32) async {
        defer { close(connection) }
        let own = getuid()
        guard let peer = LoginSocket.peerUID(of: connection), peer == 0 || peer == own else {
            logger.warning("Refused a login socket connection from another user")
            return
        }
        let request: LoginRequest
        switch await BlockingWork.result({ () throws(LoginRequest.Failure) in
            try LoginRequest.read(from: connection, within: Self.readMilliseconds)
        }) {
        case .success(let read): request = read
        case .failure(let failure):
            logger.warning("Refused a malformed login request", metadata: ["why": "\(failure)"])
            return
        }
        var reply = Self.reply(to: await perform(request, fromPAM: peer == 0))
        _ = write(connection, &reply, 1)
    }

    private func perform(_ request: LoginRequest, fromPAM: Bool) async -> Result<LoginOutcome, ServiceError> {
        do throws(ServiceError) {
            switch request {
            case .login(let password) where fromPAM:
                return .success(try await service.login(password: password))
            case .change(let old, let new) where fromPAM:
                return .success(try await service.changeLoginPassword(old: old, new: new))
            case .login(let password):
                logger.notice(
                    "A login request from the user's own uid, not root (the PAM module): it may only unlock login")
                try await service.unlock(.login, with: .login(password))
                return .success(.unlocked)
            case .change:
                logger.warning(
                    "Refused a password change from the user's own uid: only root (the PAM module) may change login's login password"
                )
                return .failure(.accessDenied)
            }
        } catch {
            logger.notice("A login request failed", metadata: ["error": "\(error)"])
            return .failure(error)
        }
    }

    static func reply(to outcome: Result<LoginOutcome, ServiceError>) -> UInt8 {
        switch outcome {
        case .success(.unlocked): Reply.unlocked.rawValue
        case .success(.created): Reply.created.rawValue
        case .success(.wrongPasscode), .failure(.wrongPasscode): Reply.wrongPassword.rawValue
        case .failure(.passcodePolicy), .failure(.invalidArgument), .failure(.accessDenied), .failure(.noSuchObject),
            .failure(.notInitialized), .failure(.noMatchingSlot):
            Reply.refused.rawValue
        case .failure: Reply.failed.rawValue
        }
    }
}
