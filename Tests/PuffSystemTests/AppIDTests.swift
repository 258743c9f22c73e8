// SPDX-License-Identifier: Apache-2.0
import PuffSystem
import Testing

/// Issue 28: app ids follow flatpak's grammar, so an id flatpak would refuse never names a caller,
/// a rule or a portal key.
@Suite struct AppIDTests {
    @Test(arguments: [
        "org.example.App", "org.gnome.Calculator", "com.github.some-user.Tool", "_x.y.z",
        "org.example.App_2", "a.b." + String(repeating: "c", count: 251),
    ])
    func idsFlatpakAcceptsAreAccepted(_ id: String) {
        #expect(AppID(rawValue: id)?.rawValue == id)
    }

    @Test(arguments: [
        "", "org.example", "org..App", ".org.example.App", "org.example.App.", "org.example.9App",
        "org.example.my-app", "org.exa mple.App", "org.example.Äpp", "org/example.App.x",
        "a.b." + String(repeating: "c", count: 252),
    ])
    func idsFlatpakRefusesAreRefused(_ id: String) {
        #expect(AppID(rawValue: id) == nil)
    }
}
