@testable import ARStyle
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

/// The open of a confined file follows no symbolic link, so one swapped into the checked path
/// between the check and the open cannot lead out of the folder.
final class ImageFileOpenTests: XCTestCase {
    func testAConfinedOpenFollowsNoSymbolicLinkBelowTheFolder() throws {
        let folder = StyleFolder()
        let outside = NSTemporaryDirectory() + "arstyle-swap-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        _ = FileManager.default.createFile(atPath: outside + "/123.png", contents: Data("secret".utf8))
        try FileManager.default.createDirectory(atPath: folder.path + "/img/sub", withIntermediateDirectories: true)
        folder.write("img/sub/123.png", "inside")
        let root = try XCTUnwrap(realpath(folder.path + "/img", nil).map { p in defer { free(p) }; return String(cString: p) })
        let flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC
        // The checked path, opened from the folder down.
        let fd = ImageFile.open(root + "/sub/123.png", beneath: root, flags: flags)
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        // The same path once `sub` is swapped for a link out of the folder (as a racing writer would
        // do after the check): refused, where a plain open would read the outside file.
        try FileManager.default.removeItem(atPath: folder.path + "/img/sub")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/img/sub", withDestinationPath: outside)
        XCTAssertEqual(ImageFile.open(root + "/sub/123.png", beneath: root, flags: flags), -1)
        XCTAssertTrue(errno == ELOOP || errno == ENOTDIR, "errno \(errno)")
        let plain = Glibc.open(root + "/sub/123.png", flags)
        XCTAssertGreaterThanOrEqual(plain, 0, "a plain open follows the link")
        close(plain)
        // The file itself swapped for a link: refused too.
        try FileManager.default.removeItem(atPath: folder.path + "/img/sub")
        try FileManager.default.createDirectory(atPath: folder.path + "/img/sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/img/sub/123.png", withDestinationPath: outside + "/123.png")
        XCTAssertEqual(ImageFile.open(root + "/sub/123.png", beneath: root, flags: flags), -1)
    }
}
