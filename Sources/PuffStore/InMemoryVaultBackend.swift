// SPDX-License-Identifier: Apache-2.0

/// Keeps the vault in process memory: the reference ``VaultBackend``, used by puffd until the file
/// vault exists, and by tests, which can make commits fail on purpose.
public actor InMemoryVaultBackend: VaultBackend {
    /// `"memory"`.
    public static let kind = "memory"

    /// What a later ``load()`` returns; every successful commit is applied here.
    public private(set) var snapshot: VaultSnapshot
    /// How many commits succeeded.
    public private(set) var commitCount = 0
    private var pendingFailures: [StoreError] = []
    private var failsAlways: StoreError?
    private var holdsNextCommit = false
    private var heldCommit: CheckedContinuation<Void, Never>?
    private var holdingWaiters: [CheckedContinuation<Void, Never>] = []

    /// Creates a backend that starts with `snapshot` (empty by default).
    public init(snapshot: VaultSnapshot = VaultSnapshot()) {
        self.snapshot = snapshot
    }

    /// Returns the current snapshot.
    public func load() async throws -> VaultSnapshot {
        snapshot
    }

    /// Applies `changes` to the snapshot, or throws an injected failure and changes nothing.
    public func commit(_ changes: [RecordChange]) async throws {
        if holdsNextCommit {
            holdsNextCommit = false
            await withCheckedContinuation { continuation in
                heldCommit = continuation
                for waiter in holdingWaiters { waiter.resume() }
                holdingWaiters.removeAll()
            }
        }
        if let failsAlways { throw failsAlways }
        if !pendingFailures.isEmpty { throw pendingFailures.removeFirst() }
        try snapshot.apply(changes)
        commitCount += 1
    }

    /// Makes the next commit throw `error` (tests). Calls queue up, one failure per commit.
    public func failNextCommit(with error: StoreError = .writeFailed("injected failure")) {
        pendingFailures.append(error)
    }

    /// Makes every commit throw `error` until called with nil (tests).
    public func failAllCommits(with error: StoreError?) {
        failsAlways = error
    }

    /// Makes the next commit wait until ``releaseHeldCommit()``, as a slow disk would (tests).
    public func holdNextCommit() {
        holdsNextCommit = true
    }

    /// Returns once a commit is being held.
    public func waitUntilHolding() async {
        if heldCommit != nil { return }
        await withCheckedContinuation { holdingWaiters.append($0) }
    }

    /// Lets the held commit go on.
    public func releaseHeldCommit() {
        heldCommit?.resume()
        heldCommit = nil
    }
}
