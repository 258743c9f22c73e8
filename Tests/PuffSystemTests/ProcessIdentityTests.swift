// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffSystem
import Testing

/// Issue 28: a caller's sandbox is read from its `/proc/<pid>` through one directory descriptor.
/// What a process's root holds as `.flatpak-info` is only believed as a small regular file naming
/// a valid app; a link, a FIFO, a huge file, a reused pid or a process gone mid-read is
/// `.unverified`, never an app, never the host, and never a hang.
@Suite struct ProcessIdentityTests {
    /// A folder laid out as `/proc` for one fake process, `pid` 4242: `stat`, `exe`, `root/`.
    final class FakeProc {
        let path: String
        let pid: UInt32 = 4242
        var root: String { "\(path)/\(pid)/root" }

        init(start: UInt64 = 1000, exe: String = "/usr/bin/xdg-dbus-proxy", state: String = "S") throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("puff-proc-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: "\(path)/\(pid)/root", withIntermediateDirectories: true)
            // Field 22 is the start; the command name holds a space and a `)` as real ones may.
            let middle = Array(repeating: "0", count: 18).joined(separator: " ")
            try "\(pid) (evil) name) \(state) \(middle) \(start) 123 456\n"
                .write(toFile: "\(path)/\(pid)/stat", atomically: false, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: "\(path)/\(pid)/exe", withDestinationPath: exe)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        func plant(_ text: String, as name: String = ".flatpak-info") throws {
            try text.write(toFile: "\(root)/\(name)", atomically: false, encoding: .utf8)
        }

        func read(bound: UInt64? = nil) -> ProcessIdentity {
            ProcessIdentity.read(pid: pid, startedBy: bound, procRoot: path)
        }
    }

    static let info = "[Application]\nname=org.example.App\n\n[Instance]\ninstance-id=1234567890\n"

    private func isUnverified(_ identity: ProcessIdentity) -> Bool {
        if case .unverified = identity.sandbox { return true }
        return false
    }

    @Test func aRootWithoutFlatpakInfoIsTheHost() throws {
        let proc = try FakeProc(exe: "/usr/bin/secret-tool")
        let identity = proc.read(bound: 1000)
        #expect(identity == ProcessIdentity(executable: "/usr/bin/secret-tool", sandbox: .host))
    }

    @Test func aRootWithFlatpakInfoIsItsAppWithTheExecutableThatCarriesIt() throws {
        let proc = try FakeProc()
        try proc.plant(Self.info)
        let app = try #require(AppID(rawValue: "org.example.App"))
        #expect(
            proc.read()
                == ProcessIdentity(
                    executable: "/usr/bin/xdg-dbus-proxy", sandbox: .app(app, instance: "1234567890")))
    }

    @Test func aFlatpakInfoWithoutANameIsUnverified() throws {
        let proc = try FakeProc()
        try proc.plant("[Application]\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n")
        #expect(proc.read().sandbox == .unverified(".flatpak-info names no valid app"))
    }

    @Test func aFIFOPlantedAsFlatpakInfoIsUnverifiedAtOnceWithoutWaitingForAWriter() throws {
        let proc = try FakeProc()
        #expect(mkfifo("\(proc.root)/.flatpak-info", 0o600) == 0)
        #expect(proc.read().sandbox == .unverified(".flatpak-info is not a regular file"))
    }

    @Test func aLinkToAValidFileIsNotFollowed() throws {
        let proc = try FakeProc()
        try proc.plant(Self.info, as: "real-info")
        try FileManager.default.createSymbolicLink(
            atPath: "\(proc.root)/.flatpak-info", withDestinationPath: "\(proc.root)/real-info")
        #expect(isUnverified(proc.read()))
    }

    @Test func aDanglingLinkIsNotTakenForAMissingFile() throws {
        let proc = try FakeProc()
        try FileManager.default.createSymbolicLink(
            atPath: "\(proc.root)/.flatpak-info", withDestinationPath: "\(proc.root)/nowhere")
        #expect(isUnverified(proc.read()))
    }

    @Test func aFolderPlantedAsFlatpakInfoIsUnverified() throws {
        let proc = try FakeProc()
        try FileManager.default.createDirectory(
            atPath: "\(proc.root)/.flatpak-info", withIntermediateDirectories: false)
        #expect(isUnverified(proc.read()))
    }

    @Test func aFileOverTheLimitIsUnverifiedThoughItStartsWithAValidApp() throws {
        let proc = try FakeProc()
        let padding = String(repeating: "# padding\n", count: (1 << 20) / 10)
        try proc.plant(Self.info + padding)
        #expect(proc.read().sandbox == .unverified(".flatpak-info is too big"))
    }

    @Test func aFileAtTheLimitIsRead() throws {
        let proc = try FakeProc()
        let padding = String(repeating: "#", count: ProcessIdentity.flatpakInfoLimit - Self.info.utf8.count - 1)
        try proc.plant(Self.info + padding + "\n")
        if case .app(let app, _) = proc.read().sandbox {
            #expect(app.rawValue == "org.example.App")
        } else {
            Issue.record("a file of exactly the limit was not read as an app: \(proc.read())")
        }
    }

    @Test func aProcessThatStartedAfterItsConnectionAppearedHoldsAReusedPid() throws {
        let proc = try FakeProc(start: 5000)
        try proc.plant(Self.info)
        #expect(proc.read(bound: 4998).sandbox == .unverified("pid reused"))
        // One tick of rounding is allowed.
        #expect(!isUnverified(proc.read(bound: 4999)))
    }

    @Test func aRootThatCannotBeReachedIsNotTakenForTheHost() throws {
        let proc = try FakeProc()
        try FileManager.default.removeItem(atPath: proc.root)
        #expect(isUnverified(proc.read()))
    }

    @Test func aZombieIsUnverified() throws {
        let proc = try FakeProc(state: "Z")
        #expect(proc.read().sandbox == .unverified("the process exited"))
    }

    @Test func aProcessThatIsGoneIsUnverified() throws {
        let proc = try FakeProc()
        #expect(isUnverified(ProcessIdentity.read(pid: 4243, startedBy: nil, procRoot: proc.path)))
    }

    // The real /proc: what the fake folder cannot show.

    @Test func thisTestProcessIsItself() {
        let identity = ProcessIdentity.read(pid: UInt32(getpid()), startedBy: ProcessIdentity.bootTicks())
        #expect(identity.executable?.hasPrefix("/") == true)
        #expect(identity.sandbox == .host)
    }

    @Test func aDescriptorOfAProcessThatExitedAndWasReapedReadsNothingOfItsSuccessor() throws {
        let pid = try spawnTrue()
        let directory = open("/proc/\(pid)", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #expect(directory >= 0)
        defer { close(directory) }
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        // ESRCH from every read through the descriptor (F12).
        #expect(ProcessIdentity.read(directory: directory, startedBy: nil).sandbox == .unverified("the process exited"))
    }

    @Test func aRealZombieIsNotTakenForTheHost() throws {
        let pid = try spawnTrue()
        defer {
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        // Waits for the exit, leaving the child a zombie: its root link then fails with ENOENT,
        // which a plain open of root/.flatpak-info would take for the host.
        var info = siginfo_t()
        #expect(waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == 0)
        #expect(ProcessIdentity.read(pid: UInt32(pid), startedBy: nil).sandbox == .unverified("the process exited"))
    }

    /// Starts `/bin/true`, not waited for.
    private func spawnTrue() throws -> pid_t {
        var pid: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { for argument in arguments { free(argument) } }
        let result = posix_spawn(&pid, "/bin/true", nil, nil, arguments, environ)
        try #require(result == 0)
        return pid
    }
}
