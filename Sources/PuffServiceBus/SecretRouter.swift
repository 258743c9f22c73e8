// SPDX-License-Identifier: Apache-2.0
public import Logging
public import PuffDBus
public import PuffService

/// Builds the Secret Service's router from the service alone: its interface tables, its object
/// tree and the one error mapping. ``SecretServiceBus`` serves it on a connection; tests hand it
/// messages with no bus at all (Hummingbird's `.router` test mode is the model).
public enum SecretRouter {
    /// What ``make(service:readers:spellings:logger:)`` builds.
    public struct Built: Sendable {
        /// Answers each call.
        public let router: Router
        /// How the bus thread decodes calls for it: the `value` of every `(oayays)` into locked
        /// memory, and a call whose signature no served method takes not at all.
        public let decodePolicy: DecodePolicy
        /// The Secret portal's requests in flight, cancelled when their caller leaves the bus
        /// (none on the control connection).
        var portalRequests = PortalRequests()
    }

    /// The router of `service`'s five interfaces and gnome-keyring's `ChangeWithPrompt`.
    ///
    /// - Parameters:
    ///   - readers: Where Item property reads are noted, for lock-change signals; nil notes none.
    ///   - spellings: Where `Unlock` keeps its callers' paths for the prompt's `Completed`; nil
    ///     keeps none (each object's own path is echoed then).
    ///   - portalOwner: Who owns org.freedesktop.portal.Desktop now, asked at each `RetrieveSecret`;
    ///     nil refuses every caller (``PortalGuard``).
    ///   - logger: Receives the errors the mapping does not name.
    public static func make(
        service: SecretService, readers: PropertyReaders? = nil, spellings: PromptSpellings? = nil,
        portalOwner: (@Sendable () async -> String?)? = nil, logger: Logger
    ) -> Built {
        let portal = PortalBackend(
            requests: PortalRequests(), gate: portalOwner.map { PortalGuard(portalOwner: $0) } ?? .closed,
            logger: logger)
        let context = BusContext(service: service, readers: readers, spellings: spellings, portal: portal)
        let interfaces = SecretInterfaces(context: context)
        let tree = SecretTree(context: context, interfaces: interfaces)
        let mapping = DBusErrorMapping(logger: logger)
        let router = Router(tree: tree, mapError: { mapping.map($0) })
        let policy = DecodePolicy(
            secretFields: [SecretServiceNames.secretSignature.rawValue: 2],
            methodSignatures: router.methodSignatures(serving: interfaces.served))
        return Built(router: router, decodePolicy: policy, portalRequests: portal.requests)
    }
}
