// SPDX-License-Identifier: Apache-2.0

/// What doctor knows about the machine it runs on, gathered by ``DoctorProbe``.
public struct HostFacts: Sendable, Equatable {
    /// puffctl's environment.
    public var environment: [String: String]
    /// Whether `$XDG_RUNTIME_DIR/bus`, the bus of a systemd user session, is a socket.
    public var runtimeBusSocketExists: Bool
    /// The text of `/proc/version`; WSL's kernel names Microsoft in it.
    public var kernelVersion: String
    /// The container marker files that exist: `/.dockerenv` (Docker), `/run/.containerenv` (Podman).
    public var containerMarkers: [String]
    /// puffctl's user id.
    public var userID: UInt32

    /// Creates the facts.
    public init(
        environment: [String: String], runtimeBusSocketExists: Bool = false, kernelVersion: String = "",
        containerMarkers: [String] = [], userID: UInt32 = 1000
    ) {
        self.environment = environment
        self.runtimeBusSocketExists = runtimeBusSocketExists
        self.kernelVersion = kernelVersion
        self.containerMarkers = containerMarkers
        self.userID = userID
    }

    /// `$XDG_RUNTIME_DIR/bus`, or `/run/user/UID/bus` when the variable is not set.
    var runtimeBusPath: String {
        (nonEmpty("XDG_RUNTIME_DIR") ?? "/run/user/\(userID)") + "/bus"
    }

    /// Whether this is an SSH login.
    var isSSH: Bool { nonEmpty("SSH_CONNECTION") != nil || nonEmpty("SSH_TTY") != nil }
    /// Whether this is Windows' WSL.
    var isWSL: Bool { kernelVersion.lowercased().contains("microsoft") }

    /// The variable's value unless it is missing or empty.
    func nonEmpty(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }
}

/// Check 1: is there a session bus, and can puffctl reach it? Over SSH, in WSL and in
/// containers there often is none; the next steps say how to get one.
public enum BusCheck {
    /// The findings for `host`, where `address` is `--address` (nil for the session bus) and
    /// `connectError` what connecting failed with (nil when it worked).
    public static func findings(host: HostFacts, address: String?, connectError: String?) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        let variable = host.nonEmpty("DBUS_SESSION_BUS_ADDRESS")
        if let address {
            findings.append(DoctorFinding(.ok, "bus address given with --address: \(address)"))
        } else if let variable {
            findings.append(DoctorFinding(.ok, "DBUS_SESSION_BUS_ADDRESS=\(variable)"))
        } else {
            // libdbus falls back to $XDG_RUNTIME_DIR/bus; many other clients do not.
            findings.append(
                DoctorFinding(
                    host.runtimeBusSocketExists ? .warn : .fail, "DBUS_SESSION_BUS_ADDRESS is not set",
                    next: busStep(host)))
        }
        findings += contextFindings(host, connected: connectError == nil)
        if let connectError {
            findings.append(
                DoctorFinding(
                    .fail, "cannot connect to the bus: \(connectError)",
                    next: address != nil
                        ? "check the address given with --address"
                        : variable != nil ? busStep(host) : nil))
        } else {
            findings.append(DoctorFinding(.ok, "connected to the bus"))
        }
        return findings
    }

    /// How to get a session bus here.
    static func busStep(_ host: HostFacts) -> String {
        if host.runtimeBusSocketExists {
            return "export DBUS_SESSION_BUS_ADDRESS=unix:path=\(host.runtimeBusPath)"
        }
        return "no session bus runs for you: start one for this shell with `dbus-run-session -- $SHELL`, "
            + "then start puffd in it"
    }

    /// One line per special place this runs in (SSH, WSL, a container), with its own advice when
    /// the bus cannot be reached.
    static func contextFindings(_ host: HostFacts, connected: Bool) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        let mark: DoctorMark = connected ? .ok : .warn
        if host.isSSH {
            findings.append(
                DoctorFinding(
                    mark, "this is an SSH session" + (connected ? "" : ": SSH does not forward a session bus"),
                    next: connected
                        ? nil
                        : "with systemd's user session (`loginctl enable-linger $USER` keeps it running), "
                            + "`export DBUS_SESSION_BUS_ADDRESS=unix:path=\(host.runtimeBusPath)`; "
                            + "without it, `dbus-run-session -- $SHELL` and start puffd in that shell"))
        }
        if host.isWSL {
            findings.append(
                DoctorFinding(
                    mark, "this is WSL" + (connected ? "" : ": it has a session bus only with systemd"),
                    next: connected
                        ? nil
                        : "add `[boot]` and `systemd=true` to /etc/wsl.conf and run `wsl --shutdown` from "
                            + "Windows; or use `dbus-run-session -- $SHELL`"))
        }
        if let marker = host.containerMarkers.first {
            findings.append(
                DoctorFinding(
                    mark,
                    "this is a container (\(marker))" + (connected ? "" : ": containers rarely have a session bus"),
                    next: connected
                        ? nil
                        : "run `dbus-run-session -- $SHELL` inside it and start puffd there, or mount the "
                            + "host's $XDG_RUNTIME_DIR/bus and point DBUS_SESSION_BUS_ADDRESS at it"))
        }
        return findings
    }
}
