// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The listening Unix socket the PAM module hands login passwords to:
/// `$XDG_RUNTIME_DIR/puff/login.socket`, in a folder of mode 0700 owned by the user.
///
/// A folder or socket that is a symlink, or belongs to someone else, is refused rather than
/// reused; a stale socket of ours (puffd was killed) is replaced.
final class LoginSocket: Sendable {
    /// Why the socket could not be made; puffd goes on without it.
    struct SetupError: Error, CustomStringConvertible {
        let description: String
    }

    /// The socket's file name in its folder.
    static let fileName = "login.socket"

    let path: String
    let fd: Int32
    /// Whether puffd made the socket file (and removes it when done); systemd's stays.
    private let ownsPath: Bool

    /// The listening socket systemd passed (``SocketActivation``), bound to `path` by systemd.
    init(adopting fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        self.ownsPath = false
    }

    /// Creates the folder `folder` (0700) if needed and listens on the socket in it.
    init(folder: String) throws(SetupError) {
        let uid = getuid()
        if mkdir(folder, 0o700) != 0, errno != EEXIST {
            throw SetupError(description: "cannot create \(folder): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw SetupError(description: "\(folder) is not a folder (a symlink?)")
        }
        guard info.st_uid == uid, info.st_mode & 0o077 == 0 else {
            throw SetupError(description: "\(folder) must belong to uid \(uid) with mode 0700")
        }
        let path = folder + "/" + Self.fileName
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { throw SetupError(description: "\(path) is too long for a socket") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == uid else {
                throw SetupError(description: "\(path) exists and is not our socket")
            }
            // A socket someone still listens on belongs to a running puffd; only a dead one's goes.
            guard !Self.accepts(address) else { throw SetupError(description: "another puffd listens on \(path)") }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SetupError(description: "socket: \(String(cString: strerror(errno)))") }
        // The socket is made 0600 from the start: no moment where another user could connect.
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        umask(previous)
        guard bound == 0, listen(fd, 8) == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw SetupError(description: "cannot listen on \(path): \(why)")
        }
        self.path = path
        self.fd = fd
        self.ownsPath = true
    }

    deinit {
        close(fd)
        if ownsPath { unlink(path) }
    }

    /// Whether something listens at `address`.
    private static func accepts(_ address: sockaddr_un) -> Bool {
        var address = address
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    /// Waits up to `milliseconds` for a connection; nil when none came.
    func accept(within milliseconds: Int32) -> Int32? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, milliseconds) > 0 else { return nil }
        let connection = Glibc.accept(fd, nil, nil)
        guard connection >= 0 else { return nil }
        _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
        return connection
    }

    /// The uid of the process at the other end of `connection` (`SO_PEERCRED`).
    static func peerUID(of connection: Int32) -> uid_t? {
        // struct ucred is { pid_t pid; uid_t uid; gid_t gid; }; Glibc's module hides it behind
        // _GNU_SOURCE, so the three 32-bit fields are read as a tuple of that layout.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
            length == MemoryLayout.size(ofValue: credentials)
        else { return nil }
        return credentials.uid
    }
}
