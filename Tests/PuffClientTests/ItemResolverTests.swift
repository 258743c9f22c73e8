// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffClient

/// ITEM resolution against a directory answered from a table: which item, and why none or several.
struct ItemResolverTests {
    /// `Status`, `ListItems` and `SearchItems` from fixed data; search matches every pair exactly.
    private struct Table: ItemDirectory {
        var collections: [CollectionStatus]
        var items: [ItemSummary]
        /// Paths `SearchItems` can see although `ListItems` gives their collection's paths only.
        var indexed: [String: [String: String]] = [:]

        func status() async throws(ClientError) -> VaultStatus {
            VaultStatus(isInitialized: true, store: "file", dataDirectory: "/d", version: "0", collections: collections)
        }

        func listItems(in collection: String) async throws(ClientError) -> [ItemSummary] {
            items.filter { $0.collection == collection }
        }

        func searchItems(_ query: [String: String]) async throws(ClientError) -> (unlocked: [String], locked: [String])
        {
            let known = items.compactMap { item in item.attributes.map { (item.path, $0) } } + indexed.map { ($0, $1) }
            let hits = known.filter { _, attributes in query.allSatisfy { attributes[$0.key] == $0.value } }.map(\.0)
            let locked = Set(collections.filter(\.isLocked).map { SecretPaths.collection($0.id) + "/" })
            let isLocked = { (path: String) in locked.contains { path.hasPrefix($0) } }
            return (hits.filter { !isLocked($0) }, hits.filter(isLocked))
        }
    }

    private static func item(_ collection: String, _ number: UInt64, _ label: String, created: UInt64?) -> ItemSummary {
        ItemSummary(
            collection: collection, path: SecretPaths.item(collection, number: number), label: label,
            attributes: ["service": "mail", "n": "\(collection)\(number)"], created: created, modified: created)
    }

    private static let login = CollectionStatus(id: "login", label: "Login", isLocked: false, itemCount: 3)
    private static let work = CollectionStatus(id: "work", label: "Work", isLocked: false, itemCount: 1)

    private func resolve(_ table: Table, _ arguments: [String]) async throws -> ResolvedItem {
        try await ItemResolver(directory: table).resolve(try ItemReference(arguments: arguments))
    }

    private func failure(_ table: Table, _ arguments: [String]) async -> ClientError? {
        do {
            _ = try await resolve(table, arguments)
            return nil
        } catch {
            return error as? ClientError
        }
    }

    private static let table = Table(
        collections: [login, work],
        items: [
            item("login", 1, "newest", created: 300), item("login", 2, "oldest", created: 100),
            item("work", 1, "middle", created: 200),
        ])

    @Test func aPathANumberAndUniqueAttributesNameTheSameItem() async throws {
        let byPath = try await resolve(Self.table, ["/org/freedesktop/secrets/collection/work/1"])
        let byNumber = try await resolve(Self.table, ["work/1"])
        let byAttributes = try await resolve(Self.table, ["service=mail", "n=login1", "service=mail"])
        #expect(byPath.item.label == "middle")
        #expect(byNumber == byPath)
        #expect(byAttributes.item.label == "newest")
        #expect(byPath.collection == Self.work)
    }

    @Test func severalMatchesListTheCandidatesOldestFirst() async {
        let error = await failure(Self.table, ["service=mail"])
        guard case .ambiguous(_, let candidates) = error else {
            Issue.record("expected an ambiguity")
            return
        }
        #expect(candidates.map(\.label) == ["oldest", "middle", "newest"])
        #expect(error?.exitStatus == .notFound)
        let lines = error?.message.split(separator: "\n") ?? []
        #expect(lines.count == 5, "a sentence, a header and three candidates")
        #expect(lines.last?.contains("/org/freedesktop/secrets/collection/login/1") == true)
    }

    @Test func candidatesWithoutTimesComeLastInTheDaemonsOrder() {
        let unknown = [
            ItemSummary(collection: "c", path: "/x/2"), ItemSummary(collection: "c", path: "/x/1"),
        ]
        let dated = Self.item("login", 9, "dated", created: 5)
        #expect(ItemResolver.oldestFirst(unknown + [dated]).map(\.path) == [dated.path, "/x/2", "/x/1"])
    }

    @Test func aLockedCollectionsIndexedItemMatchesWithItsPathOnly() async throws {
        let vault = CollectionStatus(id: "vault", label: "Vault", isLocked: true, itemCount: 1)
        let path = SecretPaths.item("vault", number: 4)
        let table = Table(
            collections: [Self.login, vault], items: [ItemSummary(collection: "vault", path: path)],
            indexed: [path: ["service": "bank"]])
        let resolved = try await resolve(table, ["service=bank"])
        #expect(resolved.item.path == path)
        #expect(resolved.item.label == nil)
        #expect(resolved.collection.isLocked)
    }

    @Test func noMatchNamesTheLockedPrivateCollectionsItCouldNotSearch() async {
        let diary = CollectionStatus(id: "diary", label: "Diary", isLocked: true, itemCount: 2, isPrivate: true)
        let table = Table(collections: [Self.login, diary], items: Self.table.items)
        let error = await failure(table, ["service=none"])
        #expect(error == .noMatch(query: "service=none", unsearched: ["diary"]))
        #expect(error?.message.contains("puffctl unlock diary") == true)
        #expect(await failure(Self.table, ["service=none"]) == .noMatch(query: "service=none", unsearched: []))
    }

    @Test func namesThatFindNothingExitWithFour() async {
        #expect(await failure(Self.table, ["login/7"]) == .noSuchItem("login/7"))
        #expect(await failure(Self.table, ["nope/1"]) == .noSuchCollection("nope"))
        let elsewhere = "/org/freedesktop/secrets/collection/gone/1"
        #expect(await failure(Self.table, [elsewhere]) == .noSuchItem(elsewhere))
        #expect(ClientError.noSuchItem("x").exitStatus == .notFound)
    }
}
