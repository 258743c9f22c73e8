// SPDX-License-Identifier: Apache-2.0

/// Who owns the Secret Service name, as doctor found out from the bus and `/proc`.
public struct OwnerFacts: Sendable, Equatable {
    /// What the owner answered to `io.puff.Control1.Status`.
    public enum Answer: Sendable, Equatable {
        /// puffd, with its status.
        case puffd(VaultStatus)
        /// Not puffd: it has no `/io/puff/Control`.
        case notPuffd
        /// No telling: the call failed otherwise (the message says how).
        case unknown(String)
    }

    /// The name looked up, normally `org.freedesktop.secrets`.
    public var busName: String
    /// The owner's unique name (`:1.42`); nil when nobody owns the name.
    public var uniqueName: String?
    /// The owner's process id, when the bus told.
    public var processID: UInt32?
    /// The owner's executable (`/proc/PID/exe`), when it could be read.
    public var executable: String?
    /// What the owner answered.
    public var answer: Answer

    /// Creates the facts.
    public init(
        busName: String, uniqueName: String?, processID: UInt32? = nil, executable: String? = nil,
        answer: Answer = .notPuffd
    ) {
        self.busName = busName
        self.uniqueName = uniqueName
        self.processID = processID
        self.executable = executable
        self.answer = answer
    }

    /// `/usr/bin/gnome-keyring-daemon (pid 1234)`, as much of it as is known.
    var who: String {
        let pid = processID.map { "pid \($0)" }
        switch (executable, pid) {
        case (let exe?, let pid?): return "\(exe) (\(pid))"
        case (let exe?, nil): return exe
        case (nil, let pid?): return "an unreadable executable (\(pid), another user's?)"
        case (nil, nil): return uniqueName ?? "nobody"
        }
    }
}

/// Check 2: who owns `org.freedesktop.secrets`, and is it puffd?
public enum OwnerCheck {
    /// The findings for `owner`; `activated` is the provider the bus starts when nobody owns the
    /// name (``ActivationCheck``), nil when no file names it.
    public static func findings(owner: OwnerFacts, activated: SecretProvider?) -> [DoctorFinding] {
        let name = owner.busName
        guard owner.uniqueName != nil else {
            switch activated {
            case .puff?:
                return [DoctorFinding(.ok, "nobody owns \(name) yet; the bus starts puffd on first use")]
            case let provider?:
                return [
                    DoctorFinding(
                        .fail, "nobody owns \(name), and first use would start \(provider.displayName)",
                        next: "start puffd now (`systemctl --user start puffd`, or `make run`), and make the bus "
                            + "start puffd (see Activation)")
                ]
            case nil:
                return [
                    DoctorFinding(
                        .fail, "nobody owns \(name) and nothing would start a provider",
                        next: "start puffd (`systemctl --user start puffd`, or `make run`), and make the bus "
                            + "start it on first use (see Activation)")
                ]
            }
        }
        switch owner.answer {
        case .puffd(let status):
            let version = status.version.isEmpty ? "" : " \(status.version)"
            return [DoctorFinding(.ok, "puffd\(version) owns \(name): \(owner.who)")]
        case .notPuffd:
            let provider = SecretProvider(command: owner.executable ?? "")
            let what = provider == .other ? "" : ", \(provider.displayName)"
            return [
                DoctorFinding(
                    .fail, "\(name) is owned by \(owner.who)\(what), not puffd",
                    next:
                        "\(provider.stopStep)\(owner.processID.map { provider == .other ? " (`kill \($0)`)" : "" } ?? ""); "
                        + "then start puffd")
            ]
        case .unknown(let reason):
            return [
                DoctorFinding(
                    .warn, "\(name) is owned by \(owner.who), which did not say whether it is puffd (\(reason))",
                    next: "run puffctl as the user puffd runs as, or look at that process")
            ]
        }
    }
}
