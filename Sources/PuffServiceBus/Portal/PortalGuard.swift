// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService
import PuffSystem

/// Who may ask for an app's portal key (docs/design/sandboxed-apps.md §2.1): only the connection
/// that owns `org.freedesktop.portal.Desktop` right now, and only if it is not sandboxed.
///
/// The backend is served on the Secret Service's connection, which an app given
/// `--talk=org.freedesktop.secrets` reaches too: without this check it could call
/// `RetrieveSecret` itself with another app's id and get that app's key, as it does from
/// gnome-keyring 42 (F9). The owner is asked of the bus at every call, never cached, so a replaced
/// portal is not believed; a sandboxed owner (a manifest's `--own=org.freedesktop.portal.Desktop`)
/// is refused as well.
struct PortalGuard: Sendable {
    /// xdg-desktop-portal's well-known name.
    static let portalName = BusName("org.freedesktop.portal.Desktop")!

    /// Why a call was refused.
    enum Refusal: Equatable, Sendable, CustomStringConvertible {
        /// The caller does not own the portal's name (`owner`: who does, if anyone).
        case notThePortal(owner: String?)
        /// The caller owns it, but runs in a sandbox (or could not be identified).
        case sandboxed

        var description: String {
            switch self {
            case .notThePortal: "only xdg-desktop-portal may call org.freedesktop.impl.portal.Secret"
            case .sandboxed: "a sandboxed caller may not serve as xdg-desktop-portal"
            }
        }
    }

    /// The unique name owning ``portalName`` now, or nil when nobody does or the bus did not say.
    let portalOwner: @Sendable () async -> String?

    /// Why `caller` may not ask for a key, or nil when it may.
    func refusal(of caller: Caller) async -> Refusal? {
        // The sandbox is known already; the owner costs a round trip to the bus.
        guard case .host = caller.sandbox else { return .sandboxed }
        let owner = await portalOwner()
        return Self.refusal(sender: caller.client.rawValue, owner: owner)
    }

    /// The owner check on its own: `sender` must be `owner`.
    static func refusal(sender: String, owner: String?) -> Refusal? {
        guard let owner, owner == sender else { return .notThePortal(owner: owner) }
        return nil
    }

    /// A guard that refuses everyone: where no bus can say who the portal is.
    static let closed = PortalGuard { nil }
}
