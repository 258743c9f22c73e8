// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl collection`: the group of collection subcommands.
struct CollectionCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collection",
        abstract: "Create, attach, delete, restore, rename, set and list collections, and choose the default one.",
        subcommands: [
            CreateCollection.self, AttachCollection.self, DeleteCollection.self, RestoreCollection.self,
            RenameCollection.self, SetCollection.self, ListCollections.self, SetDefaultCollection.self,
        ]
    )
}
