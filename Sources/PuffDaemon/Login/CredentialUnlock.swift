// SPDX-License-Identifier: Apache-2.0
import Glibc
import Logging
import PuffCrypto
import PuffService

/// Unlocks collections at start from systemd credentials: each file
/// `$CREDENTIALS_DIRECTORY/puff.passcode.<collection>` holds that collection's passcode (the user
/// unit's `LoadCredentialEncrypted=`, sealed with `systemd-creds encrypt` to the TPM or the host
/// key). `login` is created from its credential on a vault without one, as with `--unlock-fd`.
///
/// One trailing newline is dropped (`echo secret | systemd-creds encrypt - ...` adds one). A
/// credential that is missing, unreadable or wrong is a log line; the collection stays locked.
enum CredentialUnlock {
    /// The file-name prefix; the rest is the collection's id.
    static let prefix = "puff.passcode."

    /// Unlocks every collection with a credential in `directory`, in name order.
    static func run(directory: String, service: SecretService, logger: Logger) async {
        for name in names(in: directory) {
            let collection = String(name.dropFirst(prefix.count))
            let path = directory + "/" + name
            let read = await BlockingWork.result { () throws(LoginRequest.Failure) in try passcode(at: path) }
            guard case .success(let passcode) = read, passcode.count > 0 else {
                logger.warning("The credential \(name) could not be read, or is empty")
                continue
            }
            do {
                if collection == "login" {
                    let outcome = try await service.login(password: passcode)
                    logger.info("login \(outcome == .created ? "created" : "unlocked") from its credential")
                    if outcome == .wrongPasscode { logger.warning("The credential \(name) does not open login") }
                } else {
                    try await service.unlock(CollectionID(collection), passcode: passcode)
                    logger.info("\(collection) unlocked from its credential")
                }
            } catch {
                logger.warning("The credential \(name) did not unlock \(collection): \(error)")
            }
        }
    }

    /// The credential files in `directory`, sorted.
    static func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(prefix), name.count > prefix.count { names.append(name) }
        }
        return names.sorted()
    }

    /// The file's bytes without one trailing newline, at most ``LoginRequest/maxField`` of them.
    static func passcode(at path: String) throws(LoginRequest.Failure) -> SecureBytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw .closed }
        // StartupUnlock's rule: exactly one trailing newline goes.
        return try StartupUnlock.readPasscode(from: fd)
    }
}
