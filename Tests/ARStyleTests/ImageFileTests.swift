import ARStyle
import Foundation
import XCTest

/// Image paths built from payloads stay in the folder the template names, and only regular files
/// are read, without blocking.
final class ImageFileTests: XCTestCase {
    let folder = StyleFolder()

    private func resolve(_ template: String, _ data: String) throws -> Result<ImageFile, PathRefusal> {
        ImageFile.resolve(try TextTemplate(template), values: ["data": data], baseDirectory: folder.path)
    }

    private func refusal(_ template: String, _ data: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        switch try resolve(template, data) {
        case .success(let f):
            XCTFail("'\(data)' named \(f.path)", file: file, line: line)
            return ""
        case .failure(let r):
            return r.description
        }
    }

    func testAPayloadNamesAFileInTheTemplatesFolder() throws {
        let f = try resolve("img/{data}.png", "123").get()
        XCTAssertEqual(f, ImageFile(path: folder.path + "/img/123.png", confinedTo: folder.path + "/img"))
        XCTAssertEqual(try f.read(maxBytes: 1000), Array("not really a png, but it exists".utf8))
    }

    func testParentFolderComponentsAreRefused() throws {
        XCTAssertTrue(try refusal("img/{data}.png", "../../../../srv/x").contains("'..' would leave '\(folder.path)/img'"))
        XCTAssertTrue(try refusal("img/{data}.png", "a/../../x").contains("'..'"))
        XCTAssertTrue(try refusal("{data}/x.png", "..").contains("'..'"))
    }

    func testAbsolutePathsAreRefused() throws {
        XCTAssertTrue(try refusal("img/{data}.png", "/srv/x").contains("an absolute path"))
        XCTAssertTrue(try refusal("{data}", "/etc/passwd").contains("an absolute path"))
    }

    func testNulAndControlCharactersAreRefused() throws {
        let nul = try refusal("img/{data}.png", "123\u{0}")
        XCTAssertTrue(nul.contains("contains a NUL character"), nul)
        XCTAssertTrue(nul.contains("123\\u{0}.png"), nul)
        XCTAssertTrue(try refusal("img/{data}.png", "a\nb").contains("U+000A"))
    }

    func testSubfoldersInsideTheFolderAreAllowed() throws {
        try FileManager.default.createDirectory(atPath: folder.path + "/img/shoes", withIntermediateDirectories: true)
        folder.write("img/shoes/red.png", "red")
        let f = try resolve("img/{data}.png", "shoes/./red").get()
        XCTAssertEqual(f.path, folder.path + "/img/shoes/red.png")
        XCTAssertEqual(try f.read(maxBytes: 100), Array("red".utf8))
    }

    func testASymbolicLinkLeadingOutOfTheFolderIsRefused() throws {
        let outside = NSTemporaryDirectory() + "arstyle-outside-\(UUID().uuidString).png"
        _ = FileManager.default.createFile(atPath: outside, contents: Data("secret".utf8))
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/img/evil.png", withDestinationPath: outside)
        let f = try resolve("img/{data}.png", "evil").get()
        XCTAssertThrowsError(try f.read(maxBytes: 100)) { error in
            XCTAssertTrue("\(error)".contains("a symbolic link leads out of"), "\(error)")
        }
    }

    func testASymbolicLinkInsideTheFolderIsFollowed() throws {
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/img/alias.png", withDestinationPath: "123.png")
        XCTAssertEqual(try resolve("img/{data}.png", "alias").get().read(maxBytes: 100).count, 31)
    }

    func testAFIFOIsRefusedWithoutBlocking() throws {
        XCTAssertEqual(mkfifo(folder.path + "/img/fifo.png", 0o644), 0)
        // Opening a FIFO for reading blocks until a writer comes: this must return at once.
        XCTAssertThrowsError(try resolve("img/{data}.png", "fifo").get().read(maxBytes: 100)) { error in
            XCTAssertTrue("\(error)".contains("not a regular file (a FIFO)"), "\(error)")
        }
        XCTAssertThrowsError(try ImageFile(path: folder.path + "/img/fifo.png").read(maxBytes: 100))
    }

    func testFoldersMissingFilesAndLargeFilesAreRefused() throws {
        XCTAssertThrowsError(try resolve("{data}", "img").get().read(maxBytes: 100)) { XCTAssertTrue("\($0)".contains("a folder"), "\($0)") }
        XCTAssertThrowsError(try resolve("img/{data}.png", "nope").get().read(maxBytes: 100)) {
            XCTAssertTrue("\($0)".contains("file not found"), "\($0)")
        }
        XCTAssertThrowsError(try resolve("img/{data}.png", "123").get().read(maxBytes: 10)) {
            XCTAssertTrue("\($0)".contains("31 bytes, more than the 10 accepted"), "\($0)")
        }
    }

    func testAStyleResolvesImagePathsThroughTheConfinement() throws {
        let style = try folder.parse(#"{"rules": [{"overlays": [{"type": "image", "file": "img/{data}.png"}]}]}"#)
        let bad = style.overlays(for: CodeInfo(symbology: "QR-Code", text: "../../../../srv/x", trackID: 1))[0]
        XCTAssertNil(bad.imagePath)
        guard case .failure(let refusal)? = bad.image else { return XCTFail("\(String(describing: bad.image))") }
        XCTAssertTrue(refusal.reason.contains("'..'"))
        let good = style.overlays(for: CodeInfo(symbology: "QR-Code", text: "123", trackID: 1))[0]
        XCTAssertEqual(good.imagePath, folder.path + "/img/123.png")
    }
}
