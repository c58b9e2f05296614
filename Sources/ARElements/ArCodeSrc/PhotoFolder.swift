import ARBridge
import ARCore
import ARCodeGen
import ARGst
import CGStreamer
import Foundation

/// `arcodesrc`'s `photos` folder: the images found in it (recursively, sorted by path) with what
/// each shows, and decoding of the chosen ones to gray with GStreamer.
///
/// An image `N.png`, `N.jpg`/`N.jpeg` or `N.webp` has a code when `N.txt` (its text, `\r\n` read as
/// `\n`) or `N.bin` (its bytes) lies beside it, unless its folder's name starts with
/// `falsepositives`; every other image is a photo without a code (a distractor).
struct PhotoFolder {
    /// One image file.
    struct Entry {
        /// Absolute path of the image.
        var path: String
        /// Path of its `.txt` or `.bin` truth file; nil for a photo without a code.
        var truthPath: String?
        /// Name of the folder it is in (for the symbology).
        var folder: String
    }

    /// The folder as given.
    let root: String
    /// Images with a code, sorted by path.
    let withCodes: [Entry]
    /// Images without a code, sorted by path.
    let withoutCodes: [Entry]

    private static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "webp"]

    /// Lists `root`. Throws `ElementError.openRead` naming the path when it is not a readable folder
    /// or holds no image.
    init(_ root: String) throws {
        self.root = root
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue,
              let walker = FileManager.default.enumerator(atPath: root) else {
            throw ElementError.openRead("arcodesrc: photo folder '\(root)' does not exist or is not a folder",
                                        debug: "photos=\(root)")
        }
        var relative: [String] = []
        while let item = walker.nextObject() as? String {
            if Self.imageExtensions.contains((item as NSString).pathExtension.lowercased()) { relative.append(item) }
        }
        var withCodes: [Entry] = [], withoutCodes: [Entry] = []
        for item in relative.sorted() {
            let path = (root as NSString).appendingPathComponent(item)
            let stem = (path as NSString).deletingPathExtension
            let folder = ((path as NSString).deletingLastPathComponent as NSString).lastPathComponent
            let truth = ["txt", "bin"].map { stem + "." + $0 }.first { FileManager.default.fileExists(atPath: $0) }
            if let truth, !ClipPhoto.isDistractorFolder(folder) {
                withCodes.append(Entry(path: path, truthPath: truth, folder: folder))
            } else {
                withoutCodes.append(Entry(path: path, truthPath: nil, folder: folder))
            }
        }
        guard !withCodes.isEmpty || !withoutCodes.isEmpty else {
            throw ElementError.openRead("arcodesrc: no images (.png, .jpg, .webp) found in photo folder '\(root)'",
                                        debug: "photos=\(root)")
        }
        self.withCodes = withCodes
        self.withoutCodes = withoutCodes
    }

    /// `codes` photos with codes and `distractors` without, chosen by `seed` (see
    /// `ClipPhoto.choose`) and decoded: photos with codes first. Throws `ElementError` naming the
    /// path when a kind asked for is absent or an image or truth file cannot be read.
    func photos(codes: Int, distractors: Int, seed: UInt64) throws -> [ClipPhoto] {
        if codes > 0, withCodes.isEmpty {
            throw ElementError.openRead("arcodesrc: 'photo-count' is \(codes) but photo folder '\(root)' has no image with a .txt or .bin beside it",
                                        debug: "photos=\(root)")
        }
        if distractors > 0, withoutCodes.isEmpty {
            throw ElementError.openRead("arcodesrc: 'distractors' is \(distractors) but photo folder '\(root)' has no image without a code (none in a 'falsepositives*' folder or without a .txt/.bin)",
                                        debug: "photos=\(root)")
        }
        let chosen = ClipPhoto.choose(codes, of: withCodes.count, seed: seed, stream: 0).map { withCodes[$0] }
            + ClipPhoto.choose(distractors, of: withoutCodes.count, seed: seed, stream: 1).map { withoutCodes[$0] }
        var decoded: [String: LumaPlane] = [:]
        return try chosen.map { entry in
            let image = try decoded[entry.path] ?? Self.decodeGray(entry.path)
            decoded[entry.path] = image
            var payload: [UInt8]?
            if let truth = entry.truthPath {
                guard let data = FileManager.default.contents(atPath: truth) else {
                    throw ElementError.openRead("arcodesrc: could not read '\(truth)'", debug: "photos=\(root)")
                }
                payload = truth.hasSuffix(".txt") ? ClipPhoto.payload(text: Array(data)) : Array(data)
            }
            return ClipPhoto(image: image, payload: payload,
                             symbology: payload == nil ? "photo" : ClipPhoto.symbology(forFolder: entry.folder), name: entry.path)
        }
    }

    /// Decodes one image file to gray levels with `filesrc ! decodebin ! videoconvert ! GRAY8 ! fakesink`,
    /// prerolled synchronously (at most 20 s). Throws `ElementError.openRead` naming the path.
    static func decodeGray(_ path: String) throws -> LumaPlane {
        func failure(_ why: String) -> ElementError {
            ElementError.openRead("arcodesrc: could not read image '\(path)': \(why)", debug: "photos")
        }
        var error: UnsafeMutablePointer<GError>?
        let launch = "filesrc name=src ! decodebin ! videoconvert ! video/x-raw,format=GRAY8 ! fakesink name=sink sync=false"
        let made = gst_parse_launch_full(launch, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        if let error {
            defer { g_error_free(error) }
            if let made { gst_object_unref(UnsafeMutableRawPointer(made)) }
            throw failure(String(cString: error.pointee.message))
        }
        guard let pipeline = made else { throw failure("no pipeline") }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
        }
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        guard let src = gst_bin_get_by_name(bin, "src"), let sink = gst_bin_get_by_name(bin, "sink") else {
            throw failure("no filesrc or fakesink")
        }
        defer {
            gst_object_unref(UnsafeMutableRawPointer(src))
            gst_object_unref(UnsafeMutableRawPointer(sink))
        }
        var location = GValue()
        g_value_init(&location, ar_value_gtype(AR_VALUE_STRING))
        g_value_set_string(&location, path)
        g_object_set_property(UnsafeMutableRawPointer(src).assumingMemoryBound(to: GObject.self), "location", &location)
        g_value_unset(&location)

        let bus = gst_element_get_bus(pipeline)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        gst_element_set_state(pipeline, GST_STATE_PAUSED)
        let types = GstMessageType(rawValue: GST_MESSAGE_ASYNC_DONE.rawValue | GST_MESSAGE_ERROR.rawValue)
        guard let msg = gst_bus_timed_pop_filtered(bus, 20 * 1_000_000_000, types) else { throw failure("timed out") }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self)) }
        if msg.pointee.type == GST_MESSAGE_ERROR {
            var err: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            gst_message_parse_error(msg, &err, &debug)
            defer { g_error_free(err); g_free(debug) }
            throw failure(err.map { String(cString: $0.pointee.message) } ?? "decoding failed")
        }
        let baseSink = UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GstBaseSink.self)
        guard let sample = gst_base_sink_get_last_sample(baseSink) else { throw failure("no picture decoded") }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(sample).assumingMemoryBound(to: GstMiniObject.self)) }
        var info = GstVideoInfo()
        guard let caps = gst_sample_get_caps(sample), gst_video_info_from_caps(&info, caps) != 0,
              let buffer = gst_sample_get_buffer(sample) else { throw failure("no picture decoded") }
        let width = Int(info.width), height = Int(info.height), stride = Int(info.stride.0)
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { throw failure("buffer not readable") }
        defer { gst_buffer_unmap(buffer, &map) }
        guard width > 0, height > 0, Int(map.size) >= stride * (height - 1) + width else { throw failure("short picture") }
        let bytes = UnsafeRawBufferPointer(start: map.data, count: Int(map.size))
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width { pixels[y * width + x] = bytes[y * stride + x] }
        }
        do {
            return try LumaPlane(validatingWidth: width, height: height, pixels: pixels)
        } catch {
            throw failure("\(error)")
        }
    }
}
