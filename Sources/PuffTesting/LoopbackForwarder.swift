// SPDX-License-Identifier: Apache-2.0
public import Foundation
import Glibc
import PuffSystem
import Synchronization
import SystemPackage

/// A TCP forwarder on 127.0.0.1 in front of a local server, for offline tests: clients connect to
/// ``port``; ``close()`` stops listening and cuts every connection, so a client is refused as if
/// the server had gone (an in-memory server cannot be restarted without losing its data);
/// ``open()`` listens on the same port again.
public final class LoopbackForwarder: Sendable {
    /// The port clients connect to.
    public let port: UInt16
    /// The server's port.
    public let target: UInt16
    /// What the forwarding threads share; they hold it, not the forwarder, so that a forwarder
    /// released by its test closes everything.
    private let shared: Shared

    /// Listens on a free port of 127.0.0.1 and forwards each connection to `target` there.
    public convenience init(to target: UInt16) throws {
        self.init(listener: try Self.listen(on: 0), to: target)
    }

    /// Forwards what `listener` (a listening socket of 127.0.0.1, now the forwarder's) accepts to
    /// `target`: a caller that must know the forwarder's port before choosing the server's.
    public init(listener: Int32, to target: UInt16) {
        self.target = target
        shared = Shared(target: target)
        port = Self.port(of: listener)
        shared.start(listener)
    }

    deinit { close() }

    /// Stops listening and cuts every forwarded connection; returns once the port is free.
    public func close() {
        shared.close()
    }

    /// Listens on ``port`` again.
    public func open() throws {
        shared.start(try Self.listen(on: port))
    }

    /// How many of a connection's two directions ended.
    private final class Ends: Sendable {
        let count = Mutex(0)
    }

    private final class Shared: Sendable {
        let target: UInt16
        /// The listening socket and its thread's end signal (nil while closed), and the sockets
        /// of the connections being forwarded.
        let state = Mutex<(listener: Int32?, accepting: DispatchSemaphore?, connections: Set<Int32>)>((nil, nil, []))

        init(target: UInt16) {
            self.target = target
        }

        func close() {
            let (listener, accepting) = state.withLock { state in
                defer { (state.listener, state.accepting) = (nil, nil) }
                return (state.listener, state.accepting)
            }
            // shutdown wakes the thread blocked in accept(2), which then closes the socket itself.
            if let listener { shutdown(listener, Int32(SHUT_RDWR)) }
            accepting?.wait()
            // After the accepting thread ended: no connection is added any more.
            for connection in state.withLock({ $0.connections }) { shutdown(connection, Int32(SHUT_RDWR)) }
        }

        func start(_ listener: Int32) {
            let accepting = DispatchSemaphore(value: 0)
            state.withLock { state in (state.listener, state.accepting) = (listener, accepting) }
            Thread.detachNewThread { [self] in
                while true {
                    let client: Int32
                    do {
                        client = try SystemCalls.accept(listener)
                    } catch {
                        if (error as? Errno) == .connectionAbort { continue }
                        break
                    }
                    forward(client)
                }
                Glibc.close(listener)
                accepting.signal()
            }
        }

        /// Connects to the server and copies bytes both ways until either side ends.
        private func forward(_ client: Int32) {
            guard let server = try? LoopbackForwarder.connect(to: target) else {
                Glibc.close(client)
                return
            }
            state.withLock { _ = $0.connections.formUnion([client, server]) }
            let ends = Ends()
            for (from, to) in [(client, server), (server, client)] {
                Thread.detachNewThread { [self] in
                    var buffer = [UInt8](repeating: 0, count: 16384)
                    while true {
                        let got =
                            (try? buffer.withUnsafeMutableBytes {
                                try FileDescriptor(rawValue: from).readSome(into: $0)
                            }) ?? 0
                        if got <= 0 || !LoopbackForwarder.writeAll(to, buffer[..<got]) { break }
                    }
                    // One way ended: end both, so that the other thread's read returns too.
                    shutdown(from, Int32(SHUT_RDWR))
                    shutdown(to, Int32(SHUT_RDWR))
                    let last = ends.count.withLock { ended in
                        ended += 1
                        return ended == 2
                    }
                    guard last else { return }
                    state.withLock { _ = $0.connections.subtract([client, server]) }
                    Glibc.close(client)
                    Glibc.close(server)
                }
            }
        }
    }

    fileprivate static func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        (try? bytes.withUnsafeBytes { try FileDescriptor(rawValue: fd).sendFully($0) }) != nil
    }

    /// A socket listening on 127.0.0.1:`port` (0: any free port).
    public static func listen(on port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw LoopbackError.socket(errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw LoopbackError.socket(code)
        }
        return fd
    }

    static func connect(to port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw LoopbackError.socket(errno) }
        var address = loopback(port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(fd)
            throw LoopbackError.socket(code)
        }
        return fd
    }

    /// The port a bound socket has.
    public static func port(of fd: Int32) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// A socket call that failed, with its errno.
public enum LoopbackError: Error {
    case socket(Int32)
}
