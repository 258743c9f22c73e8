// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffSystem
import SystemPackage

/// Reads `puffd.toml` with toml++ (through the CPuffTOML shim, ``TOMLValue``) into a ``DaemonConfiguration``.
///
/// Every table and key is checked against ``ConfigurationKeys``: an unknown one, a wrong type or
/// a value out of range is an error, never ignored, so a typo cannot silently leave a default in
/// place. When several things are wrong, the one on the earliest line is reported.
public enum ConfigurationFile {
    /// The default location: `$XDG_CONFIG_HOME/puff/puffd.toml` when that is absolute (the XDG
    /// specification ignores relative ones), else `$HOME/.config/puff/puffd.toml`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/puff/puffd.toml" }
        return (environment["HOME"] ?? "") + "/.config/puff/puffd.toml"
    }

    /// Reads the file at `path` over `base`; nil when `path` does not exist and `required` is false.
    public static func read(
        path: String, required: Bool, over base: DaemonConfiguration = DaemonConfiguration()
    ) throws(ConfigurationError) -> DaemonConfiguration? {
        let text: String
        do {
            text = try contents(of: path)
        } catch {
            if error.code == ENOENT && !required { return nil }
            throw ConfigurationError(file: path, reason: "cannot read it: \(String(cString: strerror(error.code)))")
        }
        return try parse(text, file: path, over: base)
    }

    /// Reads TOML `text` (from `file`, named in errors) over `base`.
    public static func parse(
        _ text: String, file: String, over base: DaemonConfiguration = DaemonConfiguration()
    ) throws(ConfigurationError) -> DaemonConfiguration {
        let root: [TOMLEntry]
        do {
            root = try TOMLValue.parse(text).table ?? []
        } catch {
            throw ConfigurationError(file: file, line: error.line, column: error.column, reason: error.description)
        }
        var configuration = base
        var problems = check(root, into: &configuration)
        if problems.isEmpty, let problem = configuration.combinationProblem {
            problems.append(KeyProblem(path: ["vault", "mode"], reason: problem))
        }
        if problems.isEmpty, let problem = configuration.openBao.combinationProblem {
            problems.append(KeyProblem(path: ["store", "openbao", problem.key], reason: problem.reason))
        }
        guard !problems.isEmpty else { return configuration }
        let placed = problems.map { (problem: $0, line: KeyLocator.line(of: $0.path, in: text) ?? Int.max) }
        // min(by:) keeps the first of equal lines: the order the checks ran in.
        let first = placed.min { $0.line < $1.line }!
        throw ConfigurationError(
            file: file, line: first.line == Int.max ? nil : first.line,
            key: first.problem.path.joined(separator: "."), reason: first.problem.reason)
    }

    /// Reads every known key of `root` into `configuration` and returns what is wrong.
    static func check(_ root: [TOMLEntry], into configuration: inout DaemonConfiguration) -> [KeyProblem] {
        var problems: [KeyProblem] = []
        for (section, value) in root.map({ ($0.key, $0.value) }) {
            check(section: [section], value, into: &configuration, problems: &problems)
        }
        return problems
    }

    /// Reads table `section` (`["vault"]`; `["store", "openbao"]` for `[store.openbao]`, a table
    /// in `[store]`, which holds only tables).
    private static func check(
        section path: [String], _ value: TOMLValue, into configuration: inout DaemonConfiguration,
        problems: inout [KeyProblem]
    ) {
        let section = path.joined(separator: ".")
        let holdsKeys = ConfigurationKeys.sections.contains(section)
        let holdsTables = ConfigurationKeys.sections.contains { $0.hasPrefix(section + ".") }
        guard holdsKeys || holdsTables else {
            problems.append(
                KeyProblem(
                    path: path,
                    reason: "unknown table; puffd.toml has: "
                        + ConfigurationKeys.sections.map { "[\($0)]" }.joined(separator: ", ")))
            return
        }
        guard let table = value.table else {
            problems.append(KeyProblem(path: path, reason: "must be a table ([\(section)]), not a value"))
            return
        }
        guard holdsKeys else {
            for (name, value) in table.map({ ($0.key, $0.value) }) {
                check(section: path + [name], value, into: &configuration, problems: &problems)
            }
            return
        }
        let keys = ConfigurationKeys.keys(in: section)
        for (name, value) in table.map({ ($0.key, $0.value) }) {
            guard let key = keys.first(where: { $0.name == name }) else {
                problems.append(
                    KeyProblem(
                        path: path + [name],
                        reason: "unknown key; [\(section)] takes: " + keys.map(\.name).joined(separator: ", ")))
                continue
            }
            do {
                try key.read(value, &configuration)
            } catch {
                problems.append(KeyProblem(path: path + [name], reason: error.text))
            }
        }
    }

    /// The bytes of the file at `path` as text; throws the `errno` of what failed.
    private static func contents(of path: String) throws(Errno) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Errno(code: errno) }
        defer { close(descriptor) }
        do throws(SystemPackage.Errno) {
            let bytes = try FileDescriptor(rawValue: descriptor).readToEnd(limit: .max) ?? []
            return String(decoding: bytes, as: UTF8.self)
        } catch {
            throw Errno(code: error.rawValue)
        }
    }

    /// An `errno` value as an error.
    struct Errno: Error {
        var code: Int32
    }
}
