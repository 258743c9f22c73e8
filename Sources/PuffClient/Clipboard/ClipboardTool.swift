// SPDX-License-Identifier: Apache-2.0
public import ArgumentParser
import Glibc
import PuffCrypto

/// The clipboard tools `copy` drives, and how each one sets, reads and clears the clipboard.
///
/// Each `set` forks a small server of its own that holds the clipboard until someone else takes
/// it, so the tool's first process returns as soon as it has read its input.
public enum ClipboardTool: String, Sendable, CaseIterable, ExpressibleByArgument {
    /// `wl-copy` and `wl-paste` (Debian's wl-clipboard), for a Wayland session.
    case wlCopy = "wl-copy"
    /// `xclip`, for an X11 session (or Xwayland).
    case xclip
    /// `xsel`, for an X11 session.
    case xsel

    /// The programs the tool needs on `PATH`.
    var programs: [String] {
        switch self {
        case .wlCopy: ["wl-copy", "wl-paste"]
        case .xclip: ["xclip"]
        case .xsel: ["xsel"]
        }
    }

    /// Picks the tool for this session: `wl-copy` when `WAYLAND_DISPLAY` is set, else `xclip`, else
    /// `xsel` when `DISPLAY` is set, each only when its programs are on `PATH`.
    ///
    /// - Throws: ``ClientError/noClipboard(_:)`` naming the tools and the variables looked at.
    static func find(environment: [String: String]) throws(ClientError) -> ClipboardTool {
        let wayland = !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        let x11 = !(environment["DISPLAY"] ?? "").isEmpty
        let candidates: [ClipboardTool] = (wayland ? [.wlCopy] : []) + (x11 ? [.xclip, .xsel] : [])
        if let tool = candidates.first(where: { $0.isInstalled(path: environment["PATH"]) }) { return tool }
        let variables =
            switch (wayland, x11) {
            case (false, false): "neither WAYLAND_DISPLAY nor DISPLAY is set"
            case (true, false): "WAYLAND_DISPLAY is set but wl-copy and wl-paste are not on PATH"
            case (false, true): "DISPLAY is set but neither xclip nor xsel is on PATH"
            case (true, true): "none of wl-copy, xclip and xsel is on PATH"
            }
        throw .noClipboard(
            "no clipboard to copy to (\(variables)): copy needs wl-copy and wl-paste (package wl-clipboard) with "
                + "WAYLAND_DISPLAY set, or xclip or xsel with DISPLAY set; `puffctl get ITEM` prints the secret instead"
        )
    }

    /// Whether every program the tool needs is an executable on `path`.
    func isInstalled(path: String?) -> Bool {
        programs.allSatisfy { Self.executable($0, path: path) != nil }
    }

    /// Puts `secret` on the clipboard, through the tool's standard input.
    func set(_ secret: SecureBytes, path: String?) throws(ClientError) {
        let arguments =
            switch self {
            case .wlCopy: ["wl-copy"]
            case .xclip: ["xclip", "-selection", "clipboard"]
            case .xsel: ["xsel", "--clipboard", "--input"]
            }
        try run(arguments, input: secret, path: path)
    }

    /// What the clipboard holds, at most `limit` bytes, in secure memory; nil when it cannot be
    /// read as text (empty, an image, or the tool failed).
    func read(limit: Int, path: String?) -> SecureBytes? {
        let arguments =
            switch self {
            case .wlCopy: ["wl-paste", "--no-newline"]
            case .xclip: ["xclip", "-selection", "clipboard", "-o"]
            case .xsel: ["xsel", "--clipboard", "--output"]
            }
        guard let program = Self.executable(arguments[0], path: path) else { return nil }
        return ToolProcess.output(of: [program] + arguments.dropFirst(), limit: limit)
    }

    /// Empties the clipboard. xclip has no option for it, so it is given an empty string.
    func clear(path: String?) throws(ClientError) {
        switch self {
        case .wlCopy: try run(["wl-copy", "--clear"], input: .empty, path: path)
        case .xclip: try run(["xclip", "-selection", "clipboard"], input: .empty, path: path)
        case .xsel: try run(["xsel", "--clipboard", "--clear"], input: .empty, path: path)
        }
    }

    private func run(_ arguments: [String], input: SecureBytes, path: String?) throws(ClientError) {
        guard let program = Self.executable(arguments[0], path: path) else {
            throw .clipboardFailed(tool: arguments[0], detail: "it is not on PATH")
        }
        let status = try ToolProcess.run([program] + arguments.dropFirst(), input: input)
        guard status == 0 else { throw .clipboardFailed(tool: arguments[0], detail: "it exited with status \(status)") }
    }

    /// The first executable called `name` in the folders of `path`.
    static func executable(_ name: String, path: String?) -> String? {
        let folders = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: true)
        return folders.map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}
