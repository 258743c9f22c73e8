// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffDBus

/// The part of `puffctl doctor` that looks at the machine: the environment, `/proc`, the service
/// folders, the vault folder and the bus. The checks it feeds are pure functions of what it finds.
struct DoctorProbe {
    /// `--address` and `--bus-name`.
    let connection: ConnectionOptions
    /// puffctl's environment.
    let environment: [String: String]

    /// Looks at everything and returns the report; never throws: a failure is a finding.
    func report() async -> DoctorReport {
        let host = hostFacts()
        var bus: BusConnection?
        var connectError: String?
        do {
            bus = try await BusConnection.connect(address: connection.address)
        } catch let error as DBusError {
            connectError = error.message
        } catch {
            connectError = "\(error)"
        }
        defer { bus?.close() }

        let files = activationFiles()
        var sections = [
            DoctorSection("Bus", BusCheck.findings(host: host, address: connection.address, connectError: connectError))
        ]
        var status: VaultStatus?
        var puffd = Self.installedPuffd()
        if let bus {
            let owner = await ownerFacts(bus)
            if case .puffd(let found) = owner.answer {
                status = found
                puffd = owner.executable ?? puffd
            }
            sections.append(
                DoctorSection("Provider", OwnerCheck.findings(owner: owner, activated: files.first?.provider)))
        } else {
            sections.append(
                DoctorSection(
                    "Provider", [DoctorFinding(.warn, "no bus: no telling who owns \(ControlNames.secretsBusName)")]))
        }
        sections.append(
            DoctorSection("Activation", ActivationCheck.findings(files: files, environment: environment, puffd: puffd)))
        sections.append(DoctorSection("Vault", vaultFindings(status)))
        if status != nil, let bus {
            let store = await storeFindings(bus)
            if !store.isEmpty { sections.append(DoctorSection("OpenBao", store)) }
        }
        sections.append(DoctorSection("Prompter", PrompterCheck.findings(status: status)))
        sections.append(
            DoctorSection("TPM", TPMCheck.findings(Self.tpmFacts()) + TPMCheck.sealedIndexFindings(status)))
        return DoctorReport(sections)
    }

    /// The environment, the kernel (WSL), the container markers and the user's bus socket.
    func hostFacts() -> HostFacts {
        var host = HostFacts(
            environment: environment, kernelVersion: Self.read("/proc/version") ?? "",
            containerMarkers: ["/.dockerenv", "/run/.containerenv"].filter { access($0, F_OK) == 0 }, userID: getuid())
        host.runtimeBusSocketExists = Self.isSocket(host.runtimeBusPath)
        return host
    }

    /// Asks the bus who owns the Secret Service name, `/proc` what it runs, and whether it is
    /// puffd: the process that owns the control name (`--bus-name`) too. The `Status` call goes to
    /// the control connection's unique name, so it never starts a provider.
    func ownerFacts(_ bus: BusConnection) async -> OwnerFacts {
        let name = ControlNames.secretsBusName
        let unique: String?
        do {
            unique = try await bus.nameOwner(of: BusName(name)!)  // checked in ConnectionOptions.validate()
        } catch {
            return OwnerFacts(busName: name, uniqueName: "?", answer: .unknown("GetNameOwner failed: \(error)"))
        }
        guard let unique else { return OwnerFacts(busName: name, uniqueName: nil) }
        let pid = try? await bus.processID(of: unique)
        var facts = OwnerFacts(
            busName: name, uniqueName: unique, processID: pid, executable: pid.flatMap { Self.link("/proc/\($0)/exe") })
        guard let control = try? await bus.nameOwner(of: BusName(connection.busName)!),
            let controlPID = try? await bus.processID(of: control), controlPID == pid
        else {
            facts.answer = .notPuffd
            return facts
        }
        do {
            let client = try await ControlClient.connect(address: connection.address, busName: control)
            facts.answer = .puffd(try await client.status())
        } catch .otherProvider {
            facts.answer = .notPuffd
        } catch {
            facts.answer = .unknown(error.message)
        }
        return facts
    }

    /// puffd's checks of the OpenBao of its `[store.openbao]` (`CheckStore`: reachable,
    /// authenticated, policy, clock), asked of the control name's owner once it answered as
    /// puffd; empty when puffd has no OpenBao configured. puffd holds the credentials.
    func storeFindings(_ bus: BusConnection) async -> [DoctorFinding] {
        guard let control = try? await bus.nameOwner(of: BusName(connection.busName)!) else { return [] }
        do {
            let client = try await ControlClient.connect(address: connection.address, busName: control)
            return try await client.checkStore()
        } catch {
            return [DoctorFinding(.warn, "puffd did not say how its OpenBao store is: \(error.message)")]
        }
    }
}
