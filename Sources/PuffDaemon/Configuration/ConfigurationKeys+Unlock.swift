// SPDX-License-Identifier: Apache-2.0
import PuffHardware

extension ConfigurationKeys {
    /// `unlock.tpm2_device`: the TPM of tpm2 slots, a tpm2-tss TCTI (`device:/dev/tpmrm0`).
    static var tpm2Device: ConfigurationKey {
        ConfigurationKey(
            section: "unlock", name: "tpm2_device",
            read: { value, configuration throws(KeyReason) in
                configuration.tpm2Device = try tpmDevice(ConfigurationKey.string(value))
            },
            write: { configuration, _ in configuration.tpm2Device })
    }

    /// `text` when it names a TPM as `tpm2_device` and `--tpm2-device` take it: a TCTI puffd talks to
    /// (``TPM2Sealer/accepts(tcti:)``, which also refuses control characters), where `device:` names
    /// an absolute path.
    static func tpmDevice(_ text: String) throws(KeyReason) -> String {
        let name = text.prefix { $0 != ":" }
        guard TPM2Sealer.accepts(tcti: text), name != "device" || text.hasPrefix("device:/") else {
            throw KeyReason(
                "must be a TPM as tpm2-tss names it, such as \"device:/dev/tpmrm0\" or \"swtpm:path=/run/tpm.sock\", not "
                    + ConfigurationKey.quoted(text))
        }
        return text
    }

    /// `unlock.fido2_device`: the security key of fido2 slots, a hidraw device (`/dev/hidraw3`) or
    /// `unix:` and the absolute path of an authenticator's socket; unset: the first key found.
    static var fido2Device: ConfigurationKey {
        ConfigurationKey(
            section: "unlock", name: "fido2_device",
            read: { value, configuration throws(KeyReason) in
                configuration.fido2Device = try securityKeyDevice(ConfigurationKey.string(value))
            },
            write: { configuration, _ in configuration.fido2Device })
    }

    /// `text` when it names a security key as `fido2_device` and `--fido2-device` take it: the rule
    /// every call's device goes by (``SecurityKeyDevice/accepts(device:)``).
    static func securityKeyDevice(_ text: String) throws(KeyReason) -> String {
        guard SecurityKeyDevice.accepts(device: text) else {
            throw KeyReason(
                "must be a device path such as \"/dev/hidraw3\" or unix: and a socket's absolute path, not "
                    + ConfigurationKey.quoted(text))
        }
        return text
    }
}
