// SPDX-License-Identifier: Apache-2.0
import PuffStore

extension PuffDaemon {
    /// The configuration in effect: built-in defaults, then the configuration file, then the
    /// options given on the command line; and where the file part came from.
    ///
    /// Without `--config`, a missing default file is no error (most people have none); a file
    /// named with `--config` must exist.
    func effectiveConfiguration(
        environment: [String: String]
    ) throws(ConfigurationError) -> (DaemonConfiguration, ConfigurationPrinter.Source) {
        let path = config ?? ConfigurationFile.defaultPath(environment: environment)
        var settings = DaemonConfiguration()
        let source: ConfigurationPrinter.Source
        if let read = try ConfigurationFile.read(path: path, required: config != nil) {
            settings = read
            source = .file(path)
        } else {
            source = .none(defaultPath: path)
        }
        applyCommandLine(to: &settings)
        if let problem = settings.combinationProblem {
            throw ConfigurationError(file: path, key: "vault.mode", reason: problem)
        }
        return (settings, source)
    }

    /// Overrides `settings` with every option that was given.
    func applyCommandLine(to settings: inout DaemonConfiguration) {
        if let vault { settings.store = vault }
        if ephemeral {
            settings.store = RecordStoreFactory.memory.name
            settings.mode = VaultModeName.ephemeral.rawValue
        }
        if let dataDir { settings.dataDir = dataDir }
        if let kdf { settings.kdf = kdf }
        if let prompter { settings.prompterOrder = PluginRegistry.names(in: prompter) }
        if let pinentry { settings.pinentry = pinentry }
        if let pinentryTty { settings.pinentryTTY = pinentryTty }
        if let promptTimeout { settings.promptTimeout = promptTimeout }
        if let lockAfterIdle { settings.lockAfterIdle = lockAfterIdle }
        if let lockAfter { settings.lockAfter = lockAfter }
        if let kernelKeyring { settings.kernelKeyring = kernelKeyring }
        if let tpm2Device { settings.tpm2Device = tpm2Device }
        if let fido2Device { settings.fido2Device = fido2Device }
        if let logLevel { settings.logLevel = logLevel }
    }
}
