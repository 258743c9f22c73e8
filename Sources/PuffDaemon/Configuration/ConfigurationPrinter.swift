// SPDX-License-Identifier: Apache-2.0

/// Writes a ``DaemonConfiguration`` as a `puffd.toml` (`puffd --print-config`): every key with
/// its effective value, defaults resolved, so that reading the output back as a configuration
/// file gives the same configuration.
public enum ConfigurationPrinter {
    /// Where the printed configuration came from, for its first comment line.
    public enum Source: Sendable, Equatable {
        /// Read from this file.
        case file(String)
        /// No file was read; the path is where the default one would be.
        case none(defaultPath: String)
    }

    /// The TOML text of `configuration`; `environment` resolves defaults such as the data folder.
    public static func render(
        _ configuration: DaemonConfiguration, source: Source, environment: [String: String]
    ) -> String {
        var lines: [String]
        switch source {
        case .file(let path): lines = ["# puffd configuration in effect; file: \(path)"]
        case .none(let path): lines = ["# puffd configuration in effect; no file (\(path) does not exist)"]
        }
        lines.append("# Built-in defaults, then the file, then the command line; docs/configuration.md.")
        for section in ConfigurationKeys.sections {
            lines += ["", "[\(section)]"]
            for key in ConfigurationKeys.keys(in: section) {
                if let value = key.write(configuration, environment) {
                    lines.append("\(key.name) = \(value.tomlLiteral)")
                } else {
                    // An optional key that is not set: shown, but as a comment, so it reads back unset.
                    lines.append("# \(key.name) is not set")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
