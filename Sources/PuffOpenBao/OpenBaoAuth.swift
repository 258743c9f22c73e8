// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// How a client proves itself to OpenBao: a token, or an AppRole role id and secret id it logs in
/// with (`auth/<mount>/login`) for a token. All of them stay in locked memory.
public enum OpenBaoAuth: Sendable {
    case token(SecureBytes)
    case appRole(roleID: SecureBytes, secretID: SecureBytes, mount: String = "approle")

    /// How `[store.openbao]` says to sign in: `token_file`; else `approle_role_id_file` and
    /// `approle_secret_id_file`; else the systemd credentials in `credentialsDirectory`
    /// (`$CREDENTIALS_DIRECTORY`).
    ///
    /// - Throws: ``OpenBaoError/refused(_:)`` when a file is refused, only one AppRole file is
    ///   given, or nothing is configured at all.
    public static func configured(
        tokenFile: String?, roleIDFile: String?, secretIDFile: String?, credentialsDirectory: String?
    ) throws(OpenBaoError) -> OpenBaoAuth {
        if let tokenFile { return try .tokenFile(tokenFile) }
        switch (roleIDFile, secretIDFile) {
        case (let roleID?, let secretID?): return try .appRoleFiles(roleID: roleID, secretID: secretID)
        case (nil, nil): break
        default: throw .refused("an AppRole needs both approle_role_id_file and approle_secret_id_file")
        }
        if let credentialsDirectory, let auth = try systemdCredentials(in: credentialsDirectory) { return auth }
        throw .refused(
            "no way to sign in to OpenBao: set token_file, or approle_role_id_file and approle_secret_id_file, "
                + "in [store.openbao], or give puffd the systemd credentials \(roleIDCredential) and \(secretIDCredential)"
        )
    }

    /// The systemd credentials an AppRole is read from (`LoadCredential=` or
    /// `LoadCredentialEncrypted=` in the unit, found in `$CREDENTIALS_DIRECTORY`).
    public static let roleIDCredential = "openbao-role-id"
    public static let secretIDCredential = "openbao-secret-id"

    /// The token in the file at `path` (`[store.openbao] token_file`).
    ///
    /// - Throws: ``OpenBaoError/refused(_:)`` when the file is a link, not a regular file, not
    ///   the user's own, readable or writable by group or others, empty or over 4 KiB.
    public static func tokenFile(_ path: String) throws(OpenBaoError) -> OpenBaoAuth {
        .token(try CredentialFile.read(path, what: "token file", ownedByUser: true))
    }

    /// The AppRole in the files at `roleIDPath` and `secretIDPath`, checked as ``tokenFile(_:)``.
    public static func appRoleFiles(roleID roleIDPath: String, secretID secretIDPath: String, mount: String = "approle")
        throws(OpenBaoError) -> OpenBaoAuth
    {
        .appRole(
            roleID: try CredentialFile.read(roleIDPath, what: "AppRole role id file", ownedByUser: true),
            secretID: try CredentialFile.read(secretIDPath, what: "AppRole secret id file", ownedByUser: true),
            mount: mount)
    }

    /// The AppRole in systemd's credentials `openbao-role-id` and `openbao-secret-id` in
    /// `directory` (`$CREDENTIALS_DIRECTORY`); nil when the directory holds neither.
    ///
    /// systemd makes that directory for the service alone (on a private file system, with the
    /// files owned by root and opened to the service's user by an ACL), so ownership and mode are
    /// not checked there; links are still not followed.
    public static func systemdCredentials(in directory: String, mount: String = "approle")
        throws(OpenBaoError) -> OpenBaoAuth?
    {
        let roleID = directory + "/" + roleIDCredential
        let secretID = directory + "/" + secretIDCredential
        guard CredentialFile.exists(roleID) || CredentialFile.exists(secretID) else { return nil }
        return .appRole(
            roleID: try CredentialFile.read(roleID, what: "credential \(roleIDCredential)", ownedByUser: false),
            secretID: try CredentialFile.read(secretID, what: "credential \(secretIDCredential)", ownedByUser: false),
            mount: mount)
    }
}
