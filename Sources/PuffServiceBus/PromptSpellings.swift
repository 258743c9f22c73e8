// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
public import PuffService
import Synchronization

/// The paths callers passed to `Unlock` as they spelled them, kept per prompt until it completes:
/// the service answers in ``ObjectReference``s and never sees a path, while `Completed` echoes the
/// caller's own strings (secret-service.md §6.5; go-keyring needs the exact string back).
public final class PromptSpellings: Sendable {
    /// One path as a caller spelled it and what it names.
    typealias Spelled = (path: ObjectPath, reference: ObjectReference)

    private let table = Mutex<[PromptID: (owner: String, spelled: [Spelled])]>([:])

    /// An empty table.
    public init() {}

    /// Keeps the spellings of `owner`'s call that handed out `prompt`.
    func remember(_ spelled: [Spelled], for prompt: PromptID, owner: String) {
        table.withLock { $0[prompt] = (owner, spelled) }
    }

    /// The paths `prompt`'s caller spelled for `references`, in the caller's order; each
    /// reference's own path when the call's spellings are not known. Forgets the prompt's.
    func take(_ prompt: PromptID, echoing references: [ObjectReference]) -> [ObjectPath] {
        guard let kept = table.withLock({ $0.removeValue(forKey: prompt) }) else {
            return references.map(Self.path(of:))
        }
        return Self.echo(kept.spelled, of: references)
    }

    /// Forgets `prompt`'s spellings (it completed with no paths to echo).
    func forget(_ prompt: PromptID) {
        _ = table.withLock { $0.removeValue(forKey: prompt) }
    }

    /// Forgets the spellings of every prompt `owner` was handed: it left the bus, and its prompts
    /// complete with no signal.
    public func forget(owner: String) {
        table.withLock { table in table = table.filter { $0.value.owner != owner } }
    }

    /// How many prompts' spellings are kept (tests).
    var count: Int { table.withLock { $0.count } }

    /// Each spelling whose reference is among `references`, in the caller's order: a path given
    /// twice comes back twice, as it was asked.
    static func echo(_ spelled: [Spelled], of references: [ObjectReference]) -> [ObjectPath] {
        let chosen = Set(references)
        return spelled.filter { chosen.contains($0.reference) }.map(\.path)
    }

    /// The object's own path.
    static func path(of reference: ObjectReference) -> ObjectPath {
        switch reference {
        case .collection(let id): ObjectPaths.path(of: id)
        case .item(let id): ObjectPaths.path(of: id)
        }
    }
}
