// SPDX-License-Identifier: Apache-2.0
import CExpat

/// What ``ExpatReader`` reports while it reads a document: the three events KDBX's XML needs.
protocol ExpatEvents: AnyObject {
    func start(_ name: String, attributes: [String: String])
    func characters(_ text: String)
    func end(_ name: String)
    /// Set to stop the reading after the current event.
    var stopRequested: Bool { get }
}

/// Reads XML with expat, calling ``ExpatEvents`` in document order. Expat resolves no external
/// entity unless asked (it is not), and since 2.4 limits entity expansion ("billion laughs").
enum ExpatReader {
    /// Why the document could not be read.
    struct Malformed: Error {
        let line: Int
    }

    /// Reads `xml` whole; returns when it is read, or `events` asked to stop.
    ///
    /// - Throws: ``Malformed`` with the line where expat found the document not well-formed.
    static func read(_ xml: UnsafeRawBufferPointer, into events: some ExpatEvents) throws(Malformed) {
        guard let parser = XML_ParserCreate(nil) else { throw Malformed(line: 0) }
        defer { XML_ParserFree(parser) }
        let context = Context(events: events, parser: parser)
        let unmanaged = Unmanaged.passRetained(context)
        defer { unmanaged.release() }
        XML_SetUserData(parser, unmanaged.toOpaque())
        XML_SetElementHandler(parser, startHandler, endHandler)
        XML_SetCharacterDataHandler(parser, characterHandler)
        var offset = 0
        // XML_Parse takes an Int32 length: feed large documents in pieces.
        repeat {
            let count = min(xml.count - offset, 1 << 24)
            let base = xml.baseAddress?.advanced(by: offset).assumingMemoryBound(to: CChar.self)
            let isFinal = offset + count == xml.count
            let status = XML_Parse(parser, base, Int32(count), isFinal ? 1 : 0)
            if events.stopRequested { return }
            guard status == XML_STATUS_OK else { throw Malformed(line: Int(XML_GetCurrentLineNumber(parser))) }
            offset += count
        } while offset < xml.count
    }

    fileprivate final class Context {
        let events: any ExpatEvents
        let parser: XML_Parser

        init(events: any ExpatEvents, parser: XML_Parser) {
            self.events = events
            self.parser = parser
        }

        func stopIfAsked() {
            if events.stopRequested { XML_StopParser(parser, 0) }
        }
    }

    fileprivate static func contextOf(_ userData: UnsafeMutableRawPointer?) -> Context? {
        userData.map { Unmanaged<Context>.fromOpaque($0).takeUnretainedValue() }
    }
}

private let startHandler: XML_StartElementHandler = { userData, name, attributes in
    guard let context = ExpatReader.contextOf(userData), let name else { return }
    var dictionary: [String: String] = [:]
    var index = 0
    while let key = attributes?[index], let value = attributes?[index + 1] {
        dictionary[String(cString: key)] = String(cString: value)
        index += 2
    }
    context.events.start(String(cString: name), attributes: dictionary)
    context.stopIfAsked()
}

private let endHandler: XML_EndElementHandler = { userData, name in
    guard let context = ExpatReader.contextOf(userData), let name else { return }
    context.events.end(String(cString: name))
    context.stopIfAsked()
}

private let characterHandler: XML_CharacterDataHandler = { userData, text, count in
    guard let context = ExpatReader.contextOf(userData), let text, count > 0 else { return }
    let bytes = UnsafeRawBufferPointer(start: text, count: Int(count))
    context.events.characters(String(decoding: bytes, as: UTF8.self))
    context.stopIfAsked()
}
