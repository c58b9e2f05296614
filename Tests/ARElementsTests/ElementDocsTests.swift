@testable import ARElements
import ARGst
import XCTest

/// What gst-inspect-1.0 shows of each element: readable in any locale.
final class ElementDocsTests: XCTestCase {
    /// Every property's name, nick and blurb, and the element's names and description, of `E`.
    private func texts<E: ElementImplementation>(_ type: E.Type) -> [String] {
        let m = E.metadata
        return [m.factoryName, m.longName, m.klass, m.description] + E.properties.flatMap { [$0.name, $0.nick, $0.blurb] }
    }

    func testPropertyBlurbsAreAsciiSoACLocaleShowsThem() {
        // Outside UTF-8 locales (LANG=C in containers and services) GLib prints non-ASCII as escapes.
        let all = texts(ArBarcodeDetect.self) + texts(ArTrack.self) + texts(ArBarcodeTrack.self) + texts(ArOverlay.self)
            + texts(ArExport.self) + texts(ArStamp.self) + texts(ArCodeSrc.self) + texts(ArRectTrack.self)
        for text in all {
            XCTAssertTrue(text.unicodeScalars.allSatisfy(\.isASCII), "not ASCII: \(text)")
        }
    }
}
