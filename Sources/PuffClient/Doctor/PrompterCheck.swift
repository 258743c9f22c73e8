// SPDX-License-Identifier: Apache-2.0

/// Check 5: which prompter would answer an unlock prompt right now (the `prompter` key of
/// `Status`: the first of puffd's `--prompter` order that can reach a person).
public enum PrompterCheck {
    /// The findings for `status`, nil when puffd does not own the name.
    public static func findings(status: VaultStatus?) -> [DoctorFinding] {
        guard let status else {
            return [DoctorFinding(.warn, "puffd is not running: no telling who would answer a prompt")]
        }
        switch status.prompter {
        case nil:
            return [
                DoctorFinding(
                    .warn, "puffd did not say who answers prompts (older than this puffctl?)",
                    next: "restart puffd with the version of this puffctl")
            ]
        case "agent":
            return [DoctorFinding(.ok, "a `puffctl agent` answers unlock prompts (the one registered last)")]
        case "pinentry":
            return [DoctorFinding(.ok, "pinentry answers unlock prompts, on puffd's display")]
        case "none":
            return [
                DoctorFinding(
                    .warn, "no prompter can reach a person now: an unlock prompt would be dismissed at once",
                    next: "keep `puffctl agent` running in a terminal, or unlock ahead with `puffctl unlock`; "
                        + "pinentry needs DISPLAY or WAYLAND_DISPLAY in puffd's environment")
            ]
        case let other?:
            return [DoctorFinding(.ok, "\(other) answers unlock prompts")]
        }
    }
}
