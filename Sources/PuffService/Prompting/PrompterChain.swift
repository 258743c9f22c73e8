// SPDX-License-Identifier: Apache-2.0

/// Several prompters in a configured order: each question goes to the first that can reach a
/// person at that moment (an agent in a terminal, then pinentry on a display, then nobody).
public struct PrompterChain: Prompter {
    /// `"chain"`; configuration names its members instead.
    public static let kind = "chain"
    /// The prompters, most preferred first.
    public let members: [any Prompter]

    /// A chain asking `members` in this order; the last one should always be reachable (`none`).
    public init(_ members: [any Prompter]) {
        self.members = members
    }

    /// The first member that can reach a person now, if any.
    public func current() async -> (any Prompter)? {
        for member in members where await member.canReachPerson() { return member }
        return nil
    }

    /// Asks the first reachable member; with none reachable the prompt is dismissed.
    public func prompt(_ request: PromptRequest) async throws -> PromptReply {
        guard let member = await current() else { return .dismissed }
        return try await member.prompt(request)
    }

    /// Whether any member can reach a person.
    public func canReachPerson() async -> Bool {
        await current() != nil
    }
}

extension Prompter {
    /// The ``Prompter/kind`` of the prompter that would answer a prompt now: this one's when it
    /// can reach a person, a chain's first member that can, or `nil` when nobody would answer.
    public func answeringKind() async -> String? {
        guard let chain = self as? PrompterChain else { return await canReachPerson() ? Self.kind : nil }
        for member in chain.members {
            if let kind = await member.answeringKind() { return kind }
        }
        return nil
    }
}
