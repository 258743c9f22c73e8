// SPDX-License-Identifier: Apache-2.0

extension ConfigurationKeys {
    /// `items.mappers`: an array of schema mapper names, each at most once; empty turns the typed
    /// view off (every item is `other`).
    static var mappers: ConfigurationKey {
        ConfigurationKey(
            section: "items", name: "mappers",
            read: { value, configuration throws(KeyReason) in
                let example = #"such as ["internet", "generic", "note"]"#
                guard let array = value.array else {
                    throw KeyReason("must be an array of mapper names \(example), not \(ConfigurationKey.shown(value))")
                }
                var names: [String] = []
                for element in array {
                    guard let name = element.string else {
                        throw KeyReason("must be an array of mapper names \(example)")
                    }
                    guard PluginRegistry.schemaMappers.contains(name) else {
                        // `other` takes whatever the named ones leave, so it is never named.
                        let always = name == "other" ? " (\"other\" is always last and not named)" : ""
                        throw KeyReason(
                            "unknown mapper \(ConfigurationKey.quoted(name))\(always); choose from: "
                                + PluginRegistry.schemaMappers.joined(separator: ", "))
                    }
                    guard !names.contains(name) else {
                        throw KeyReason("names mapper \(ConfigurationKey.quoted(name)) twice")
                    }
                    names.append(name)
                }
                configuration.mappers = names
            },
            write: { configuration, _ in configuration.mappers })
    }
}
