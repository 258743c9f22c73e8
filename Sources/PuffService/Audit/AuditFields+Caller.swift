// SPDX-License-Identifier: Apache-2.0
import PuffStore
import PuffSystem

extension AuditFields {
    /// An entry saying `caller` did `action` to item `item` (0: none) and how it ended: the
    /// caller's executable, bus name, pid and, for a sandboxed one, its app id. Every entry about
    /// a caller is made here, so none leaves out who asked.
    init(
        _ action: AuditAction, result: AuditResult, time: UInt64, item: UInt64, label: String, caller: Caller
    ) {
        var app = ""
        if case .app(let id, _) = caller.sandbox { app = id.rawValue }
        self.init(
            action: action.rawValue, result: result.rawValue, time: time, item: item, label: label,
            executable: caller.executable ?? "", client: caller.client.rawValue, pid: caller.pid ?? 0, app: app)
    }
}
