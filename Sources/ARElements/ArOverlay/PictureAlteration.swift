import ARGst
import ARRender
import CGStreamer
import CGstApp
import Foundation

/// Runs a target's picture once through a GStreamer filter chain named in a style (`alter`, e.g.
/// `videobalance saturation=0`): `appsrc ! videoconvert ! CHAIN ! videoconvert ! RGBA ! appsink`,
/// one picture in, one out. Called off the streaming thread (`ArOverlay.alterations`).
enum PictureAlteration {
    /// Why a chain gave no picture.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Longest a chain may take for one picture, nanoseconds.
    static let timeoutNanoseconds: UInt64 = 10_000_000_000

    /// `reference` through `chain` (nil: as it is), as an image to draw.
    static func run(_ reference: TargetReference, chain: String?, name: String) -> Result<OverlayImage, Failure> {
        guard let chain else {
            return OverlayImage(rgba: reference.rgba, width: reference.width, height: reference.height, name: name)
                .map { .success($0) } ?? .failure(Failure(description: "empty picture"))
        }
        let launch = "appsrc name=in format=time caps=video/x-raw,format=RGBA,width=\(reference.width),height=\(reference.height),framerate=0/1"
            + " ! videoconvert ! \(chain) ! videoconvert ! video/x-raw,format=RGBA ! appsink name=out sync=false"
        var error: UnsafeMutablePointer<GError>?
        let parsed = gst_parse_launch(launch, &error)
        if let error {
            defer { g_error_free(error) }
            if let parsed { gst_object_unref(UnsafeMutableRawPointer(parsed)) }
            return .failure(Failure(description: "alter chain '\(chain)': \(String(cString: error.pointee.message))"))
        }
        guard let pipeline = parsed else { return .failure(Failure(description: "alter chain '\(chain)' could not be built")) }
        defer {
            gst_element_set_state(pipeline, GstState(rawValue: 1) /* GST_STATE_NULL */)
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
        }
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        guard let source = gst_bin_get_by_name(bin, "in"), let sink = gst_bin_get_by_name(bin, "out") else {
            return .failure(Failure(description: "alter chain '\(chain)': no appsrc/appsink"))
        }
        defer {
            gst_object_unref(UnsafeMutableRawPointer(source))
            gst_object_unref(UnsafeMutableRawPointer(sink))
        }
        guard gst_element_set_state(pipeline, GstState(rawValue: 4) /* GST_STATE_PLAYING */).rawValue != 0 /* GST_STATE_CHANGE_FAILURE */ else {
            return .failure(Failure(description: "alter chain '\(chain)' does not start"))
        }
        let appsrc = UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstAppSrc.self)
        let appsink = UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GstAppSink.self)
        _ = gst_app_src_push_sample(appsrc, reference.sample)
        _ = gst_app_src_end_of_stream(appsrc)
        guard let sample = gst_app_sink_try_pull_sample(appsink, GstClockTime(timeoutNanoseconds)) else {
            return .failure(Failure(description: "alter chain '\(chain)' gave no picture (an error, or not a video filter)"))
        }
        defer { gst_mini_object_unref(UnsafeMutablePointer<GstMiniObject>(sample)) }
        let picture = TargetReference(retaining: sample)
        guard let image = OverlayImage(rgba: picture.rgba, width: picture.width, height: picture.height, name: name) else {
            return .failure(Failure(description: "alter chain '\(chain)' gave a picture of an unexpected size"))
        }
        return .success(image)
    }
}

/// Runs each job on a background queue: where `aroverlay` alters pictures.
struct BackgroundJobs: StyleLoadExecutor {
    func execute(_ job: @escaping @Sendable () -> Void) { DispatchQueue.global(qos: .utility).async(execute: job) }
}
