// SPDX-License-Identifier: Apache-2.0
public import PuffStore

/// What each check of ``OpenBaoCheck`` makes of OpenBao's answers: pure functions, so that
/// every outcome can be tested with the answer given.
extension OpenBaoCheck {
    /// How far the clocks may be apart before doctor warns, and before it fails.
    static let skewWarning: Int64 = 30
    static let skewFailure: Int64 = 300

    /// A path and the capabilities fleet collections need on it.
    struct Need: Sendable, Equatable {
        var path: String
        var capabilities: [String]
        /// What for, for people.
        var purpose: String
    }

    /// The paths checked: for each fleet collection (or for any, `*` under the prefix) its
    /// entries and header (`data`, create and read) and their metadata (read and list); the
    /// transit key's encrypt and decrypt when `transitKey` is set.
    static func needs(mount: String, prefix: String, collections: [String], transitKey: String?) -> [Need] {
        let folders = collections.isEmpty ? [prefix] : collections.map { prefix.isEmpty ? $0 : "\(prefix)/\($0)" }
        var needs: [Need] = []
        for folder in folders {
            let below = folder.isEmpty ? "*" : "\(folder)/*"
            needs.append(Need(path: "\(mount)/data/\(below)", capabilities: ["create", "read"], purpose: "entries"))
            needs.append(
                Need(path: "\(mount)/metadata/\(below)", capabilities: ["read", "list"], purpose: "versions"))
        }
        if let transitKey {
            needs.append(Need(path: "transit/encrypt/\(transitKey)", capabilities: ["update"], purpose: "slot add"))
            needs.append(Need(path: "transit/decrypt/\(transitKey)", capabilities: ["update"], purpose: "unlock"))
        }
        return needs
    }

    /// The policy check from what `sys/capabilities-self` granted on each path (`root` grants
    /// everything, `deny` nothing).
    static func policy(_ needs: [Need], granted: [String: [String]]) -> StoreCheck {
        var lacking: [(need: Need, missing: [String])] = []
        for need in needs {
            let have = granted[need.path] ?? []
            let missing = have.contains("root") ? [] : need.capabilities.filter { !have.contains($0) }
            if !missing.isEmpty { lacking.append((need, missing)) }
        }
        guard let first = lacking.first else {
            return StoreCheck(
                "policy", .ok, "the token's policy allows what fleet collections need",
                details: needs.map { "\($0.capabilities.joined(separator: ", ")) on \($0.path) (\($0.purpose))" })
        }
        let more = lacking.count > 1 ? " (and \(lacking.count - 1) more path\(lacking.count > 2 ? "s" : ""))" : ""
        return StoreCheck(
            "policy", .fail,
            "the token's policy lacks \(first.missing.joined(separator: ", ")) on \(first.need.path)\(more)",
            details: lacking.map { "\($0.missing.joined(separator: ", ")) on \($0.need.path) (\($0.need.purpose))" },
            next: "add to the token's policy in OpenBao (docs/fleet.md):\n"
                + lacking.map {
                    "path \"\($0.need.path)\" { capabilities = [\($0.need.capabilities.map { "\"\($0)\"" }.joined(separator: ", "))] }"
                }.joined(separator: "\n"))
    }

    /// The reachable check from `sys/health`.
    static func reachable(_ health: OpenBaoHealth, address: String) -> StoreCheck {
        if !health.initialized {
            return StoreCheck(
                "reachable", .fail, "OpenBao at \(address) is not initialized",
                next: "initialize it (`bao operator init`)")
        }
        if health.sealed {
            return StoreCheck(
                "reachable", .fail, "OpenBao at \(address) is sealed: fleet collections are offline",
                next: "unseal it (`bao operator unseal`)")
        }
        if health.standby {
            return StoreCheck(
                "reachable", .warn, "OpenBao at \(address) answers as a standby node",
                next: "point address in [store.openbao] at the active node, or at a load balancer that sends to it")
        }
        let version = health.version.isEmpty ? "" : " \(health.version)"
        return StoreCheck("reachable", .ok, "OpenBao\(version) at \(address) answers: initialized, unsealed, active")
    }

    /// The reachable check when `sys/health` got no answer (or one that is not a health status).
    static func unreachable(_ error: OpenBaoError, address: String) -> StoreCheck {
        StoreCheck(
            "reachable", .fail, error.description,
            next: "start OpenBao, or check address (and ca_file) in [store.openbao]; meanwhile fleet collections "
                + "are read from this machine's copy and take no writes")
    }

    /// The authenticated check from `auth/token/lookup-self`; a day or less left on a token
    /// that is not renewed by logging in again is worth a warning.
    static func token(_ info: OpenBaoTokenInfo, appRole: Bool) -> StoreCheck {
        let policies = "policies: \(info.policies.isEmpty ? "none" : info.policies.joined(separator: ", "))"
        if appRole {
            return StoreCheck(
                "authenticated", .ok,
                "the AppRole login works (\(policies)); puffd logs in again before each token runs out")
        }
        if info.ttl == 0 {
            return StoreCheck("authenticated", .ok, "OpenBao takes puffd's token, which does not expire (\(policies))")
        }
        if info.ttl < 86_400 {
            return StoreCheck(
                "authenticated", .warn, "puffd's token expires in \(duration(info.ttl)) (\(policies))",
                next: "renew it (`bao token renew`) or write a new one to token_file; an AppRole "
                    + "(approle_role_id_file, approle_secret_id_file) logs in again by itself")
        }
        return StoreCheck(
            "authenticated", .ok, "OpenBao takes puffd's token, valid for \(duration(info.ttl)) more (\(policies))")
    }

    /// The clock check: this machine's clock `local` against OpenBao's `server` (its Date
    /// header), both in seconds since 1970. Over 30 s apart warns, over 5 min fails.
    public static func clock(server: Int64?, local: Int64) -> StoreCheck {
        guard let server else {
            return StoreCheck("clock", .warn, "OpenBao's answer had no Date header: the clocks were not compared")
        }
        let skew = local.subtractingReportingOverflow(server)
        let distance = skew.overflow || skew.partialValue == .min ? Int64.max : abs(skew.partialValue)
        let apart = duration(distance)
        let side = local > server ? "ahead of" : "behind"
        let next = "set the clocks right (`timedatectl set-ntp true`, or chrony) on this machine and OpenBao's"
        if distance > skewFailure {
            return StoreCheck(
                "clock", .fail,
                "this machine's clock is \(apart) \(side) OpenBao's: token lifetimes and TLS certificates are "
                    + "judged by the wrong time", next: next)
        }
        if distance > skewWarning {
            return StoreCheck("clock", .warn, "this machine's clock is \(apart) \(side) OpenBao's", next: next)
        }
        let off = distance == 0 ? "the same second" : "\(apart) \(side)"
        return StoreCheck("clock", .ok, "this machine's clock agrees with OpenBao's (\(off))")
    }

    /// `45 s`, `12 min 5 s`, `3 h 20 min`, `31 days`.
    static func duration(_ seconds: Int64) -> String {
        switch seconds {
        case ..<60: "\(seconds) s"
        case ..<3600: "\(seconds / 60) min" + (seconds % 60 == 0 ? "" : " \(seconds % 60) s")
        case ..<172_800: "\(seconds / 3600) h" + (seconds % 3600 / 60 == 0 ? "" : " \(seconds % 3600 / 60) min")
        default: "\(seconds / 86_400) days"
        }
    }
}
