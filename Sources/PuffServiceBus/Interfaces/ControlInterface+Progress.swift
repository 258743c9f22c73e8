// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffService

/// `Progress` of `io.puff.Control1` (dbus/io.puff.Control1.xml): how far a long control call has
/// got, sent while it runs to its caller only (unicast, as the spec's `Prompt.Completed`), so no
/// other client learns that it runs. The service meters and throttles (``ProgressMeter``); this
/// maps its reports to the bus.
extension SecretInterfaces {
    /// The signal's description, for introspection.
    static let progressSignal = SignalDescription(
        "Progress", [.init("operation", "s"), .init("done", "t"), .init("total", "t"), .init("unit", "s")])
}

extension BusContext {
    /// A handler sending the progress of `operation`, a control method, to the caller of `call` as
    /// `Progress` signals; nil when this context sends no signals (handlers called directly in tests).
    func progress(of operation: ControlContract.Method, for call: MethodCall) -> ProgressHandler? {
        guard let send else { return nil }
        let caller = call.sender
        return { report in
            send(
                .signal(
                    path: ControlNames.path, interface: ControlNames.interface, member: "Progress",
                    destination: caller,
                    [
                        .string(operation.name), .uint64(report.done), .uint64(report.total),
                        .string(report.unit.rawValue),
                    ]))
        }
    }
}
