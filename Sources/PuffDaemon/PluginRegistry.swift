// SPDX-License-Identifier: Apache-2.0
public import Logging
public import PuffService
public import PuffStore

/// Resolves the plugin names given in configuration to built-in implementations. Plugins are
/// compiled in: Swift on Linux has no stable ABI for loading them at run time.
public enum PluginRegistry {
    /// Names accepted by `--vault`.
    public static let recordStores = [FileRecordStore.kind, MemoryRecordStore.kind]
    /// Names accepted by `--prompter`.
    public static let prompters = [DismissingPrompter.kind]

    /// The prompter called `name`, or `nil` if there is none by that name.
    public static func prompter(named name: String, logger: Logger) -> (any Prompter)? {
        switch name {
        case DismissingPrompter.kind: DismissingPrompter(logger: logger)
        default: nil
        }
    }
}
