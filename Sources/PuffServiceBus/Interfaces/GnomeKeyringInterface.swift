// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService

extension SecretInterfaces {
    /// `org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface` at `/org/freedesktop/secrets`
    /// (secret-service.md §3.1), with only `ChangeWithPrompt(o collection) → o prompt`: a prompt
    /// that asks for the collection's current passcode, then a new one meeting its policy. Its
    /// other methods carry passcodes inside D-Bus messages, which puffd never accepts (puffctl
    /// sends them through a pipe); calls to them get `UnknownMethod`.
    static func gnomeKeyring(_ context: BusContext) -> Interface {
        let service = context.service
        return Interface(
            SecretServiceNames.gnomeKeyringInternal,
            methods: [
                Method("ChangeWithPrompt", in: .objectPath("collection"), out: [.init("prompt", "o")]) { call, path in
                    let collection = try await context.collection(at: path)
                    let prompt = try await service.changePasscodePrompt(collection, client: call.client)
                    return [.objectPath(ObjectPaths.path(of: prompt))]
                }
            ])
    }
}
