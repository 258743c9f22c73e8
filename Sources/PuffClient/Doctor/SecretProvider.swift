// SPDX-License-Identifier: Apache-2.0

/// The Secret Service providers doctor knows by name (landscape.md), told apart by their
/// executable: the one owning `org.freedesktop.secrets`, or the `Exec=` of an activation file.
public enum SecretProvider: String, Sendable, Equatable, CaseIterable {
    /// Puff's own `puffd`.
    case puff
    /// `gnome-keyring-daemon`.
    case gnomeKeyring
    /// KWallet's `ksecretd` (KF 6.14 and later) or `kwalletd5`/`kwalletd6`.
    case kwallet
    /// KeePassXC with its Secret Service integration on.
    case keepassxc
    /// `oo7-daemon`.
    case oo7
    /// Anything else.
    case other

    /// The provider whose executable appears in `command`: a path, or an `Exec=` line with
    /// arguments (any word counts, so `/usr/bin/env ksecretd` is KWallet).
    public init(command: String) {
        for word in command.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            let name = word.split(separator: "/").last.map(String.init) ?? ""
            if let known = Self.byExecutable(name) {
                self = known
                return
            }
        }
        self = .other
    }

    private static func byExecutable(_ name: String) -> SecretProvider? {
        if name == "puffd" { return .puff }
        if name.hasPrefix("gnome-keyring") { return .gnomeKeyring }
        if name == "ksecretd" || name.hasPrefix("kwalletd") { return .kwallet }
        if name.hasPrefix("keepassxc") { return .keepassxc }
        if name.hasPrefix("oo7") { return .oo7 }
        return nil
    }

    /// The name people know it by.
    public var displayName: String {
        switch self {
        case .puff: "Puff (puffd)"
        case .gnomeKeyring: "gnome-keyring"
        case .kwallet: "KWallet"
        case .keepassxc: "KeePassXC"
        case .oo7: "oo7"
        case .other: "an unknown provider"
        }
    }

    /// How to stop it from taking `org.freedesktop.secrets` again, so puffd can own the name.
    public var stopStep: String {
        switch self {
        case .puff: "stop this puffd first (`systemctl --user stop puffd`, or kill it)"
        case .gnomeKeyring:
            "stop gnome-keyring and keep it from coming back: "
                + "`systemctl --user mask --now gnome-keyring-daemon.service gnome-keyring-daemon.socket`, "
                + "and turn off its autostart entry (a copy of /etc/xdg/autostart/gnome-keyring-secrets.desktop "
                + "in ~/.config/autostart with the line Hidden=true)"
        case .kwallet:
            "turn KWallet's Secret Service off: `apiEnabled=false` under `[org.freedesktop.secrets]` in "
                + "~/.config/kwalletrc, then restart ksecretd (or log in again)"
        case .keepassxc:
            "turn off KeePassXC's Settings > Secret Service Integration, or quit KeePassXC"
        case .oo7: "stop oo7: `systemctl --user disable --now oo7-daemon.service`"
        case .other: "stop the process that owns the name"
        }
    }
}
