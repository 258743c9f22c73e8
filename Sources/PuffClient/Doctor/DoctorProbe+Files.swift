// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffStore
import PuffSystem
import SystemPackage

extension DoctorProbe {
    /// The activation files naming the bus name, in the order the bus weighs them: folder by
    /// folder (``ActivationCheck/serviceDirectories(environment:)``), and within a folder in
    /// directory order, as dbus-daemon reads it (bus/activation.c keeps the first file it reads
    /// for a name and ignores the others, whatever they are called; `make check-activation`
    /// watches it). `$XDG_RUNTIME_DIR/dbus-1/services` counts only the file named after the bus
    /// name (dbus-daemon enforces the naming there).
    func activationFiles() -> [ActivationFile] {
        let exactName = "\(ControlNames.secretsBusName).service"
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 + "/dbus-1/services" }
        var files: [ActivationFile] = []
        for folder in ActivationCheck.serviceDirectories(environment: environment) {
            let names = Self.list(folder).filter { $0.hasSuffix(".service") }
            for name in folder == runtime ? names.filter({ $0 == exactName }) : names {
                let path = "\(folder)/\(name)"
                guard let text = Self.read(path), let parsed = ActivationFile.parse(text),
                    parsed.name == ControlNames.secretsBusName
                else { continue }
                files.append(ActivationFile(path: path, exec: parsed.exec))
            }
        }
        return files
    }

    /// The vault's findings: the folder puffd reports, or the default one when puffd is not running.
    func vaultFindings(_ status: VaultStatus?) -> [DoctorFinding] {
        if let status, status.store != "file" { return [VaultCheck.memoryFinding(store: status.store)] }
        let location =
            if let status, !status.dataDirectory.isEmpty {
                VaultCheck.Location(folder: status.dataDirectory, source: "puffd's", inUse: true)
            } else {
                VaultCheck.Location(
                    folder: ActivationCheck.userDataHome(environment: environment) + "/puff", source: "the default",
                    inUse: false)
            }
        let folder = Self.facts(location.folder)
        let entries = folder?.isDirectory == true ? Self.walk(location.folder) : []
        let findings = VaultCheck.findings(location: location, folder: folder, entries: entries, userID: getuid())
        guard folder?.isDirectory == true, folder?.isSymlink == false else { return findings }
        return findings
            + VaultDamageCheck.findings(status: status, files: VaultFileCheck.findings(folder: location.folder))
    }

    /// Where an installed puffd is: `../libexec/puff/puffd` beside puffctl's `bin`, `puffd` in
    /// puffctl's own folder (a build), or Debian's `/usr/libexec/puff/puffd`.
    static func installedPuffd() -> String {
        guard let puffctl = link("/proc/self/exe"), let slash = puffctl.lastIndex(of: "/") else {
            return "/usr/libexec/puff/puffd"
        }
        let folder = String(puffctl[..<slash])
        for candidate in ["\(folder)/../libexec/puff/puffd", "\(folder)/puffd"] where access(candidate, X_OK) == 0 {
            return realpath(candidate, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            } ?? candidate
        }
        return "/usr/libexec/puff/puffd"
    }

    /// The owner and mode of `path`, not following a link; nil when it does not exist.
    static func facts(_ path: String) -> FileFacts? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        let type = info.st_mode & S_IFMT
        return FileFacts(
            path: path, isDirectory: type == S_IFDIR, isSymlink: type == S_IFLNK,
            permissions: info.st_mode & 0o7777, owner: info.st_uid)
    }

    /// Everything under `folder`, folders included, at most `limit` paths; links are not followed.
    static func walk(_ folder: String, limit: Int = 10_000) -> [FileFacts] {
        var result: [FileFacts] = []
        var pending = [folder]
        while let current = pending.popLast(), result.count < limit {
            for name in list(current) {
                guard let entry = facts("\(current)/\(name)") else { continue }
                result.append(entry)
                if entry.isDirectory && !entry.isSymlink { pending.append(entry.path) }
            }
        }
        return result
    }

    /// The names in a folder, without `.` and `..`; empty when it cannot be read.
    static func list(_ folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// A small text file's contents (at most 64 KiB), or nil.
    static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 65_536)
        // A read error keeps what came before it, as the end of the file would.
        let count = bytes.withUnsafeMutableBytes { try? FileDescriptor(rawValue: descriptor).readFully(into: $0) } ?? 0
        return String(decoding: bytes.prefix(count), as: UTF8.self)
    }

    /// Where a symbolic link points (`/proc/PID/exe`), or nil when it cannot be read.
    static func link(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `path` is a socket.
    static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }
}
