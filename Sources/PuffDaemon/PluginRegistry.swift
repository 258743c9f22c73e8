// SPDX-License-Identifier: Apache-2.0
public import Logging
public import PuffPrompters
public import PuffService
public import PuffServiceBus
public import PuffStore

/// Resolves the plugin names given in configuration to built-in implementations. Plugins are
/// compiled in: Swift on Linux has no stable ABI for loading them at run time.
public enum PluginRegistry {
    /// Names accepted by `--vault`.
    public static let recordStores = RecordStoreFactory.all.map(\.name)
    /// Names accepted by `--prompter`, alone or as a comma-separated order.
    public static let prompters = [AgentPrompter.kind, PinentryPrompter.kind, DismissingPrompter.kind]

    /// Names accepted by `[items] mappers`; the pass-through `other` is always behind them.
    public static let schemaMappers = SchemaMappers.names

    /// What the built-in prompters are made from.
    public struct PrompterSettings: Sendable {
        /// The pinentry program (`--pinentry`).
        public var pinentry = PinentryPrompter.defaultProgram
        /// The terminal a curses or tty pinentry draws on (`--pinentry-tty`); nil: none.
        public var pinentryTerminal: String?
        /// The daemon's environment, handed to pinentry for `DISPLAY` and `WAYLAND_DISPLAY`.
        public var environment: [String: String] = [:]
        /// The agents `puffctl agent` registers with; nil where nothing serves the bus.
        public var agents: AgentPrompter?

        public init(
            pinentry: String = PinentryPrompter.defaultProgram, pinentryTerminal: String? = nil,
            environment: [String: String] = [:], agents: AgentPrompter? = nil
        ) {
            self.pinentry = pinentry
            self.pinentryTerminal = pinentryTerminal
            self.environment = environment
            self.agents = agents
        }
    }

    /// The prompter called `name`, or `nil` if there is none by that name.
    public static func prompter(
        named name: String, settings: PrompterSettings = PrompterSettings(), logger: Logger
    ) -> (any Prompter)? {
        switch name {
        case DismissingPrompter.kind: DismissingPrompter(logger: logger)
        case PinentryPrompter.kind:
            PinentryPrompter(
                program: settings.pinentry, terminal: settings.pinentryTerminal, environment: settings.environment,
                logger: logger)
        // Without a bus (--print-introspection) no agent can register: the chain skips it.
        case AgentPrompter.kind: settings.agents ?? PrompterChain([])
        default: nil
        }
    }

    /// Whether every name in `order` (for example `agent,pinentry,none`) is a prompter.
    public static func isPrompterOrder(_ order: String) -> Bool {
        let names = names(in: order)
        return !names.isEmpty && names.allSatisfy(prompters.contains)
    }

    /// The prompters named in `order` (for example `pinentry,none`) as one chain, or `nil` when a
    /// name is unknown.
    public static func prompterChain(
        _ order: String, settings: PrompterSettings = PrompterSettings(), logger: Logger
    ) -> PrompterChain? {
        var members: [any Prompter] = []
        for name in names(in: order) {
            guard let member = prompter(named: name, settings: settings, logger: logger) else { return nil }
            members.append(member)
        }
        return members.isEmpty ? nil : PrompterChain(members)
    }

    /// The names of a comma-separated prompter order, spaces dropped.
    static func names(in order: String) -> [String] {
        order.split(separator: ",").map { String($0.filter { $0 != " " }) }
    }
}
