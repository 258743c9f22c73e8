// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService

extension Caller {
    /// The caller a call's context describes: its bus name, and the executable, pid and sandbox
    /// read from its process at its connection's first call. The one place a bus call becomes a
    /// ``Caller``, so every handler, the fast path and the audit log name a caller alike.
    init(_ context: CallContext) {
        self.init(
            ClientID(context.sender), executable: context.executable, pid: context.pid, sandbox: context.sandbox)
    }
}
