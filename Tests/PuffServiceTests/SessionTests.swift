// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffTesting
import Testing

@Suite struct SessionTests {
    @Test func plainSessionsAcceptAnyInputAndAnswerWithAnEmptyString() async throws {
        let service = try await Fixture().service
        let first = try await service.openSession(algorithm: "plain", input: .string(""), client: Fixture.alice)
        let second = try await service.openSession(
            algorithm: "plain", input: .other(signature: "u"), client: Fixture.bob)
        #expect(first.output == .string(""))
        #expect(first.session == SessionID("s1"))
        #expect(second.session == SessionID("s2"))
    }

    @Test func aDHSessionRoundTripsSecretsBothWays() async throws {
        let fixture = try await Fixture()
        let client = DHClient()
        let opened = try await fixture.service.openSession(
            algorithm: "dh-ietf1024-sha256-aes128-cbc-pkcs7", input: .bytes(try client.publicKey), client: Fixture.alice
        )
        guard case .bytes(let serverKey) = opened.output else {
            Issue.record("no DH key")
            return
        }
        #expect(serverKey.count == 128)
        let key = try client.key(serverPublicKey: serverKey)
        let sealed = try DHTransport.encrypt(SecureBytes(unwipedCopyOf: Array("hunter2".utf8)), key: key)
        let sent = TransportSecret(
            session: opened.session, parameters: sealed.iv, value: SecureBytes(unwipedCopyOf: sealed.ciphertext),
            contentType: "text/plain")
        let item = try await fixture.service.createItem(
            in: .login, label: "x", attributes: ["k": "v"], type: "", secret: sent, replace: false,
            client: Fixture.alice)
        #expect(try await fixture.read(item) == "hunter2")

        let first = try await fixture.service.secret(of: item, session: opened.session, caller: Caller(Fixture.alice))
        let second = try await fixture.service.secret(of: item, session: opened.session, caller: Caller(Fixture.alice))
        #expect(first.parameters.count == 16)
        #expect(first.parameters != second.parameters, "every transfer gets a fresh IV")
        let plain = try DHTransport.decrypt(ciphertext: first.value.unprotectedArray(), iv: first.parameters, key: key)
        #expect(plain.unprotectedArray() == Array("hunter2".utf8))
    }

    @Test func badDHInputIsAnInvalidArgument() async throws {
        let service = try await Fixture().service
        let dh = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
        let wrongType = await serviceError { () async throws(ServiceError) in
            try await service.openSession(algorithm: dh, input: .string(""), client: Fixture.alice)
        }
        #expect(wrongType == .invalidArgument("the DH algorithm takes a byte array"))
        for key in [[], [1], [UInt8](repeating: 0xFF, count: 129)] as [[UInt8]] {
            let error = await serviceError { () async throws(ServiceError) in
                try await service.openSession(algorithm: dh, input: .bytes(key), client: Fixture.alice)
            }
            guard case .invalidArgument = error else {
                Issue.record("expected invalidArgument, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test func garbledDHSecretsAreAnInvalidArgument() async throws {
        let fixture = try await Fixture()
        let client = DHClient()
        let opened = try await fixture.service.openSession(
            algorithm: SecretService.dhAlgorithm, input: .bytes(try client.publicKey), client: Fixture.alice)
        let garbage = TransportSecret(
            session: opened.session, parameters: [UInt8](repeating: 1, count: 16),
            value: SecureBytes(unwipedCopyOf: [1, 2, 3]),
            contentType: "")
        let error = await serviceError { () async throws(ServiceError) in
            try await fixture.service.createItem(
                in: .login, label: "", attributes: [:], type: "", secret: garbage, replace: false, client: Fixture.alice
            )
        }
        guard case .invalidArgument = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test func unknownAlgorithmsAreUnsupported() async throws {
        let service = try await Fixture().service
        let error = await serviceError { () async throws(ServiceError) in
            try await service.openSession(
                algorithm: "dh-ietf1024-sha256-aes128-cbc", input: .bytes([]), client: Fixture.alice)
        }
        #expect(error == .unsupportedAlgorithm)
    }

    @Test func withPlainSessionsTurnedOffPlainIsRefusedAndDHStillOpens() async throws {
        let service = try await Fixture(allowsPlainSessions: false).service
        let error = await serviceError { () async throws(ServiceError) in
            try await service.openSession(algorithm: "plain", input: .string(""), client: Fixture.alice)
        }
        #expect(error == .plainSessionsTurnedOff)
        let client = DHClient()
        let (output, _) = try await service.openSession(
            algorithm: SecretService.dhAlgorithm, input: .bytes(try client.publicKey), client: Fixture.alice)
        guard case .bytes(let key) = output else {
            Issue.record("a DH session answers with the service's public key, got \(output)")
            return
        }
        #expect(key.count == 128)
    }

    @Test func plainSessionsRejectParameters() async throws {
        let fixture = try await Fixture()
        let session = try await fixture.plainSession()
        let secret = TransportSecret(
            session: session, parameters: [0], value: SecureBytes(unwipedCopyOf: [1]), contentType: "")
        let error = await serviceError { () async throws(ServiceError) in
            try await fixture.service.createItem(
                in: .login, label: "", attributes: [:], type: "", secret: secret, replace: false, client: Fixture.alice)
        }
        #expect(error == .invalidArgument("a plain session takes no parameters"))
    }

    @Test func sessionsBelongToTheClientThatOpenedThem() async throws {
        let fixture = try await Fixture()
        let service = fixture.service
        let item = try await fixture.store(["k": "v"])
        let session = try await fixture.plainSession(Fixture.alice)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await service.secret(of: item, session: session, caller: Caller(Fixture.bob))
            } == .noSession)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await service.secrets(for: [], session: session, caller: Caller(Fixture.bob))
            } == .noSession)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await service.createItem(
                    in: .login, label: "", attributes: [:], type: "", secret: Fixture.plain([1], session: session),
                    replace: false,
                    client: Fixture.bob)
            } == .noSession)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await service.closeSession(session, client: Fixture.bob)
            } == .accessDenied)
        try await service.closeSession(session, client: Fixture.alice)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await service.secret(of: item, session: session, caller: Caller(Fixture.alice))
            } == .noSession)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await service.closeSession(session, client: Fixture.alice)
            } == .noSession)
    }

    @Test func aVanishedClientLosesItsSessionsOnly() async throws {
        let fixture = try await Fixture()
        let mine = try await fixture.plainSession(Fixture.alice)
        let theirs = try await fixture.plainSession(Fixture.bob)
        await fixture.service.clientVanished(Fixture.alice)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.secrets(for: [], session: mine, caller: Caller(Fixture.alice))
            } == .noSession)
        #expect(try await fixture.service.secrets(for: [], session: theirs, caller: Caller(Fixture.bob)).isEmpty)
        #expect(try await fixture.plainSession() == SessionID("s3"), "session numbers are never reused")
    }
}
