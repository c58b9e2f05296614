import ARPipelines
import XCTest

final class PipelineFileTests: XCTestCase {
    private let sample = """
    # Camera to display.
    # Needs: a V4L2 camera.

    v4l2src device=${DEVICE:-/dev/video0}
      ! decodebin   ! videoconvert
    # a comment in the middle
      ! arbarcodetrack ! aroverlay
    """

    func testHeaderIsTheLeadingCommentLines() {
        XCTAssertEqual(PipelineFile(path: "p", text: sample).header, ["Camera to display.", "Needs: a V4L2 camera."])
    }

    func testDescriptionDropsCommentsJoinsLinesAndUsesDefaults() throws {
        XCTAssertEqual(try PipelineFile(path: "p", text: sample).description(environment: [:]),
                       "v4l2src device=/dev/video0 ! decodebin   ! videoconvert ! arbarcodetrack ! aroverlay")
    }

    func testEnvironmentOverridesDefaults() throws {
        XCTAssertTrue(try PipelineFile(path: "p", text: sample).description(environment: ["DEVICE": "/dev/video2"])
            .hasPrefix("v4l2src device=/dev/video2 !"))
    }

    func testMissingRequiredVariableNamesFileLineAndVariable() {
        let file = PipelineFile(path: "pipelines/x.pipeline", text: "# x\nfilesrc location=${INPUT} ! decodebin")
        XCTAssertThrowsError(try file.description(environment: [:])) { error in
            XCTAssertEqual(error as? PipelineFileError, .missingVariable(path: "pipelines/x.pipeline", line: 2, name: "INPUT"))
            XCTAssertEqual("\(error)", "pipelines/x.pipeline:2: variable INPUT is not set (run with INPUT=... in the environment)")
        }
    }

    func testUnterminatedVariableIsReported() {
        XCTAssertThrowsError(try PipelineFile(path: "p", text: "videotestsrc pattern=${X").description(environment: [:])) { error in
            XCTAssertEqual(error as? PipelineFileError, .badVariable(path: "p", line: 1, text: "${X"))
        }
    }

    func testOnlyCommentsIsAnEmptyPipeline() {
        XCTAssertThrowsError(try PipelineFile(path: "p", text: "# nothing\n\n").description(environment: [:])) { error in
            XCTAssertEqual(error as? PipelineFileError, .empty(path: "p"))
        }
    }

    func testOutputKindFollowsTheLastElementOrPay0() {
        XCTAssertEqual(PipelineFile.output(of: "videotestsrc ! aroverlay"), .rawVideo)
        XCTAssertEqual(PipelineFile.output(of: "videotestsrc ! x264enc ! rtph264pay name=pay0 pt=96"), .payloaded)
        XCTAssertEqual(PipelineFile.output(of: "videotestsrc ! x264enc ! mp4mux ! filesink location=a.mp4"), .complete)
        XCTAssertEqual(PipelineFile.output(of: "videotestsrc ! tee name=t t. ! queue ! fakesink t. ! queue ! autovideosink"), .complete)
    }

    func testSourceIsReplacedUpToTheFirstLink() {
        XCTAssertEqual(PipelineFile.replacingSource(of: "v4l2src device=/dev/video0 ! decodebin ! aroverlay",
                                                    with: "videotestsrc num-buffers=3"),
                       "videotestsrc num-buffers=3 ! decodebin ! aroverlay")
        XCTAssertEqual(PipelineFile.replacingSource(of: "rtspsrc location=\"rtsp://a/b!c\" ! decodebin", with: "videotestsrc"),
                       "videotestsrc ! decodebin")
    }
}
