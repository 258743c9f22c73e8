// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffFormats
import PuffText

/// The `--bus ADDRESS` side of `puffctl import`: the items come from the provider running on
/// another bus (``LiveProviderSource``), flattened into `--into` in the provider's order; each
/// output line names the collection an item came from, and the collections and items that were
/// not read are listed as skipped with the reason. No attribute records the source collection:
/// attributes arrive exactly as the provider has them (docs/migration.md).
enum LiveImport {
    /// Exactly one of SOURCE and `--bus`; the file options only with a file.
    static func validate(source: String?, bus: String?, format: ForeignFormat?, passcodeDescriptor: Int32?) throws {
        switch (source, bus) {
        case (nil, nil): throw ValidationError("name the SOURCE file, or --bus ADDRESS for a running provider")
        case (_?, _?): throw ValidationError("name either a SOURCE file or --bus ADDRESS, not both")
        case (nil, _?):
            if format != nil { throw ValidationError("--format is for a SOURCE file; --bus reads a running provider") }
            if passcodeDescriptor != nil {
                throw ValidationError(
                    "--source-passcode-fd is for a SOURCE file; --bus reads only collections already unlocked")
            }
        case (_?, nil): break
        }
    }

    /// The provider's items when `address` is given (nil for a file import), with the
    /// `import-read` progress of the items described (``ImportReadProgress``); says on stderr,
    /// before anything is imported, when its secrets crossed its bus in plain, and lists what
    /// was skipped.
    static func read(_ address: String?, unlocking: LiveUnlocking, json: Bool) async throws(ClientError)
        -> LiveReading?
    {
        guard let address else { return nil }
        let reading = try await ImportReadProgress(json: json).readingAsync { () async throws(ClientError) in
            try await LiveProviderSource.read(address: address, unlocking: unlocking)
        }
        if reading.plainSession {
            Console.error(
                "warning: the provider on the other bus refused an encrypted session (\(ControlClient.algorithm)); "
                    + "its secrets crossed that bus in plain")
        }
        for collection in reading.skippedCollections {
            if json {
                Console.out(
                    ImportOutput.line(
                        SkippedCollectionLine(sourceCollection: collection.label, reason: collection.reason)))
            } else {
                Console.out(
                    "skipped   collection '\(TerminalText.escaped(collection.label))': "
                        + TerminalText.escaped(collection.reason))
            }
        }
        return reading
    }

    /// The items read but not imported, as outcome lines numbered after the batch's.
    static func skippedLines(_ reading: LiveReading?, after count: Int) -> [ImportOutcomeLine] {
        (reading?.skippedItems ?? []).enumerated().map { offset, item in
            ImportOutcomeLine(
                outcome: "skipped", index: count + offset, label: item.label, reason: item.reason, path: "")
        }
    }

    /// The source collection of every outcome line: the batch's items, then the skipped ones.
    static func origins(_ reading: LiveReading?) -> [String] {
        guard let reading else { return [] }
        return reading.origins + reading.skippedItems.map(\.collection)
    }

    /// The `--json` line of a collection not read.
    struct SkippedCollectionLine: Encodable {
        var outcome = "skipped"
        var sourceCollection: String
        var reason: String

        enum CodingKeys: String, CodingKey {
            case outcome, reason
            case sourceCollection = "source_collection"
        }
    }
}
