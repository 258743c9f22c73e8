// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
public import PuffStore

/// What `puffctl doctor` checks of the OpenBao of `[store.openbao]` (docs/fleet.md), asked by
/// puffd, which holds the credentials: whether it answers (initialized, unsealed, active), whether
/// OpenBao takes the token or the AppRole login, whether the token's policy allows what fleet
/// collections need, and how far this machine's clock is from OpenBao's.
public struct OpenBaoCheck: Sendable {
    /// The server, as `[store.openbao] address` says.
    public var address: String
    /// How puffd signs in, or why the settings give no way to.
    public var auth: Result<OpenBaoAuth, OpenBaoError>
    /// `namespace`, when set.
    public var namespace: String?
    /// `ca_file`.
    public var caFile: String?
    /// The KV v2 mount and the folder in it.
    public var mount: String
    public var prefix: String
    /// `transit_key`, when set.
    public var transitKey: String?
    /// The names of this vault's fleet collections; empty: the prefix's `*` is checked, which
    /// creating or attaching any collection needs.
    public var collections: [String]
    /// How long each request may take: the whole check must end well within a D-Bus call.
    public var timeout: Duration

    /// A check of the server at `address`.
    public init(
        address: String, auth: Result<OpenBaoAuth, OpenBaoError>, namespace: String? = nil, caFile: String? = nil,
        mount: String,
        prefix: String, transitKey: String? = nil, collections: [String] = [], timeout: Duration = .seconds(4)
    ) {
        self.address = address
        self.auth = auth
        self.namespace = namespace
        self.caFile = caFile
        self.mount = mount
        self.prefix = prefix
        self.transitKey = transitKey
        self.collections = collections
        self.timeout = timeout
    }

    /// Runs the checks in order: reachable, authenticated, policy, clock. One that cannot be
    /// asked after an earlier failure is left out (no policy without a token OpenBao takes,
    /// nothing after an unreachable server); `now` is this machine's clock, seconds since 1970.
    public func run(now: @Sendable () -> Int64) async -> [StoreCheck] {
        let client: OpenBaoClient
        do {
            // `sys/health` is asked without a token: with no usable credentials, no request that
            // needs one is sent, and the empty token is never used.
            client = try OpenBaoClient(
                address: address, auth: (try? auth.get()) ?? .token(SecureBytes(unwipedCopyOf: [])),
                namespace: namespace, caFile: caFile,
                connectTimeout: min(timeout, .seconds(2)), timeout: timeout)
        } catch {
            return [StoreCheck("reachable", .fail, error.description)]
        }
        let health: OpenBaoHealth
        do {
            health = try await client.health()
        } catch {
            return [Self.unreachable(error, address: client.address)]
        }
        let local = now()
        var checks = [Self.reachable(health, address: client.address)]
        let signedIn = await authenticated(client)
        checks.append(signedIn)
        if signedIn.outcome != .fail { checks.append(await policy(client)) }
        checks.append(Self.clock(server: health.serverTime, local: local))
        return checks
    }

    /// Logs in with the AppRole (a fresh login, as puffd does when its token runs out), then
    /// looks the token up.
    func authenticated(_ client: OpenBaoClient) async -> StoreCheck {
        let auth: OpenBaoAuth
        switch self.auth {
        case .success(let configured): auth = configured
        case .failure(let error):
            return StoreCheck(
                "authenticated", .fail, error.description,
                next: "fix the credentials in [store.openbao] (docs/fleet.md), then restart puffd")
        }
        if case .appRole(let roleID, let secretID, let mount) = auth {
            do {
                _ = try await client.logIn(roleID: roleID, secretID: secretID, mount: mount)
            } catch .denied(let path) {
                return StoreCheck(
                    "authenticated", .fail,
                    "OpenBao at \(client.address) refused the AppRole login (\(path)): the role id or secret id "
                        + "is wrong, expired or used up",
                    next: "write a new secret id (`bao write -f auth/\(mount)/role/ROLE/secret-id`) where puffd "
                        + "reads it, then restart puffd")
            } catch {
                return StoreCheck("authenticated", .fail, error.description)
            }
        }
        do {
            return Self.token(try await client.lookupSelf(), appRole: auth.isAppRole)
        } catch .denied {
            return StoreCheck(
                "authenticated", .fail,
                "OpenBao at \(client.address) does not take puffd's token (auth/token/lookup-self refused): "
                    + "expired, revoked or mistyped",
                next: auth.isAppRole
                    ? "check the AppRole's token policies and TTL in OpenBao"
                    : "write a new token to token_file, then restart puffd")
        } catch {
            return StoreCheck("authenticated", .fail, error.description)
        }
    }

    /// Asks `sys/capabilities-self` about the paths fleet collections use.
    func policy(_ client: OpenBaoClient) async -> StoreCheck {
        let needs = Self.needs(mount: mount, prefix: prefix, collections: collections, transitKey: transitKey)
        do {
            let granted = try await client.capabilities(needs.map(\.path))
            return Self.policy(needs, granted: granted)
        } catch .denied(let path) {
            return StoreCheck(
                "policy", .fail, "the token may not ask OpenBao what it may do (\(path) refused)",
                next: "give the token OpenBao's `default` policy, which allows it")
        } catch {
            return StoreCheck("policy", .fail, error.description)
        }
    }
}

extension OpenBaoAuth {
    var isAppRole: Bool {
        if case .appRole = self { true } else { false }
    }
}
