// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffDBus
import PuffService
import PuffSystem

/// What the portal backend's two interfaces share: the requests in flight, who may call, and
/// where refusals are noted.
struct PortalBackend: Sendable {
    let requests: PortalRequests
    let gate: PortalGuard
    let logger: Logger

    /// A backend that refuses every caller (tests and introspection with no bus).
    static let closed = PortalBackend(
        requests: PortalRequests(), gate: .closed,
        logger: Logger(label: "puff.portal") { _ in SwiftLogNoOpLogHandler() })
}

/// The names of xdg-desktop-portal's backend interface (org.freedesktop.impl.portal.Secret).
enum PortalNames {
    /// Where the backend lives, as xdg-desktop-portal calls it.
    static let path = ObjectPath(unchecked: "/org/freedesktop/portal/desktop")
    static let secret: InterfaceName = "org.freedesktop.impl.portal.Secret"
    static let request: InterfaceName = "org.freedesktop.impl.portal.Request"
    /// The interface's version (`version` property), read by the portal at start-up (F3).
    static let version: UInt32 = 1
}

extension SecretInterfaces {
    /// `org.freedesktop.impl.portal.Secret` at ``PortalNames/path``: `RetrieveSecret(o handle,
    /// s app_id, h fd, a{sv} options) → (u response, a{sv} results)` writes the app's key into
    /// `fd` (docs/design/sandboxed-apps.md §2). Answered later, so the portal's lane moves on
    /// while a person is asked; a caller other than the portal gets `AccessDenied` at once.
    static func portal(_ context: BusContext) -> Interface {
        let service = context.service
        let backend = context.portal
        return Interface(
            PortalNames.secret,
            methods: [
                Method(
                    "RetrieveSecret",
                    in: [.init("handle", "o"), .init("app_id", "s"), .init("fd", "h"), .init("options", "a{sv}")],
                    out: [.init("response", "u"), .init("results", "a{sv}")],
                    deferred: { call, replier in
                        // The router checked the signature `osha{sv}`.
                        guard let handle = call.arguments[0].objectPath, let appID = call.arguments[1].string,
                            let fd = call.arguments[2].unixFD
                        else { throw DBusError(.invalidArgs, "RetrieveSecret takes (o, s, h, a{sv})") }
                        let caller = call.caller
                        if let refusal = await backend.gate.refusal(of: caller) {
                            backend.logger.notice(
                                "A portal key was asked for by a caller other than xdg-desktop-portal; refused",
                                metadata: [
                                    "caller": "\(caller)", "client.name": "\(caller.client)", "refusal": "\(refusal)",
                                ])
                            await service.recordPortalRefusal(app: appID, caller: caller)
                            throw DBusError(.accessDenied, refusal.description)
                        }
                        // An unsandboxed app (empty id) has the Secret Service itself (design §2.2 step 3).
                        guard PortalRequests.isRequestHandle(handle), let app = AppID(rawValue: appID) else {
                            return PortalRequests.answer(replier, .other)
                        }
                        let admission = backend.requests.start(handle, owner: call.sender, replier: replier) {
                            await Self.retrieve(app, into: fd, caller: caller, service: service, logger: backend.logger)
                        }
                        if admission != .started { PortalRequests.answer(replier, .other) }
                    })
            ],
            properties: [Property("version", "u", get: { _ in .uint32(PortalNames.version) })]
        )
    }

    /// `org.freedesktop.impl.portal.Request` at each live request handle: `Close`, from the
    /// connection that made the request, cancels it (its question is withdrawn) and answers it
    /// with response 1.
    static func portalRequest(_ context: BusContext) -> Interface {
        let requests = context.portal.requests
        return Interface(
            PortalNames.request,
            methods: [
                Method("Close") { call in
                    switch requests.close(call.path, by: call.sender) {
                    case .closed: return []
                    case .notOwner: throw DBusError(.accessDenied, "the request belongs to another connection")
                    case .unknown: throw DBusError(.unknownObject, "no request at \(call.path)")
                    }
                }
            ])
    }

    /// The key for `app`, written into `fd`: the response the portal turns into the app's.
    private static func retrieve(
        _ app: AppID, into fd: UnixFD, caller: Caller, service: SecretService, logger: Logger
    ) async -> PortalRequests.Response {
        switch await service.portalKey(for: app, caller: caller) {
        case .cancelled:
            return .cancelled
        case .failed(let why):
            logger.notice("An app's portal key was not handed out", metadata: ["app": "\(app)", "reason": "\(why)"])
            return .other
        case .key(let key):
            // Closed meanwhile: the portal no longer listens, and the app got response 1.
            guard !Task.isCancelled else { return .cancelled }
            do throws(PortalPipe.Failure) {
                try PortalPipe.write(key, to: fd)
                return .success
            } catch {
                logger.notice(
                    "An app's portal key could not be written to its pipe",
                    metadata: ["app": "\(app)", "reason": "\(error)"])
                return .other
            }
        }
    }
}
