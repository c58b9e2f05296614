import ARCore
import ARGst
import Foundation
import XCTest

final class LifecycleTests: XCTestCase {
    func testEveryElementReachesPlayingAndReturnsToNull() {
        let path = temporaryPath("lifecycle.jsonl")
        for element in ["arbarcodedetect", "artrack", "arbarcodetrack", "aroverlay", "arexport location=\(path)"] {
            let launch = "videotestsrc num-buffers=5 pattern=ball ! video/x-raw,format=I420,width=160,height=120 ! \(element) ! fakesink"
            XCTAssertNil(runPipeline(launch), element)
        }
    }

    func testInvalidSymbologyFailsNamingThePropertyAndValue() {
        let error = runPipeline("videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=64,height=48 ! arbarcodedetect symbologies=qrcode,bogus ! fakesink")
        XCTAssertTrue(error?.message.contains("symbologies") ?? false, "\(String(describing: error))")
        XCTAssertTrue(error?.message.contains("bogus") ?? false, "\(String(describing: error))")
    }

    func testUnsupportedFormatIsRefusedAtNegotiationNamingFormats() {
        // rawvideoparse links to anything, so the format reaches arbarcodedetect at run time.
        let result = runPipelineFull("filesrc location=/dev/zero num-buffers=2 blocksize=6144 ! rawvideoparse format=rgb16 width=64 height=48 ! arbarcodedetect name=det ! fakesink")
        XCTAssertNotNil(result.error, "the pipeline must fail")
        let warning = result.warnings.first { $0.hasPrefix("det cannot handle this video format: video/x-raw") }
        XCTAssertNotNil(warning, "\(result.warnings)")
        XCTAssertTrue(warning?.contains("RGB16") ?? false)
        XCTAssertTrue(warning?.contains("I420") ?? false, "lists the accepted formats")
    }

    func testUnsupportedFormatIsRefusedWhenLinking() {
        let error = runPipeline("videotestsrc num-buffers=2 ! video/x-raw,format=RGB16,width=64,height=48 ! arbarcodedetect ! fakesink")
        XCTAssertTrue(error?.message.contains("could not link") ?? false, "\(String(describing: error))")
    }
}
