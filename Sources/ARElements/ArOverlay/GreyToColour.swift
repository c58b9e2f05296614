import ARBridge
import ARGst
import CGStreamer

/// Grey video leaving an overlay element in colour: caps that offer a colour format for every
/// GRAY8 input (so coloured overlays stay coloured), and the conversion, which only copies the
/// luma and sets the chroma to neutral (128). The colour frame keeps the grey frame's colorimetry
/// (GRAY8 without one is full range, `1:4:0:0`), so the copied luma means the same levels.
/// Downstream that takes only grey keeps grey frames, drawn in place.
enum GreyToColour {
    static let grey = "GRAY8"
    /// Colour formats offered for grey input, preferred first.
    static let colourFormats = ["I420", "NV12"]
    /// GStreamer's colorimetry for GRAY8 caps without one: full range, BT.601.
    static let greyDefaultColorimetry = "1:4:0:0"

    /// `caps` with the colour alternatives added (a new reference, transfer full).
    ///
    /// Towards the source pad (`direction` = `GST_PAD_SINK`): a structure taking only GRAY8 takes
    /// `{ I420, NV12, GRAY8 }` (colour first: a fixed grey input leaves in colour when downstream
    /// takes it); one taking GRAY8 among other formats (a query) is followed by a copy taking the
    /// colour formats. Towards the sink pad: a structure taking a colour format also takes GRAY8,
    /// last in its list, so upstream's own order decides (a grey source stays grey, a colour one
    /// stays in colour).
    static func expand(_ caps: UnsafeMutablePointer<GstCaps>, direction: GstPadDirection) -> UnsafeMutablePointer<GstCaps> {
        let result = gst_caps_new_empty()!
        for i in 0..<gst_caps_get_size(caps) {
            let s = gst_caps_get_structure(caps, i)!
            let features = gst_caps_get_features(caps, i)
            func append(_ structure: UnsafeMutablePointer<GstStructure>) {
                gst_caps_append_structure_full(result, structure, features.map { gst_caps_features_copy($0) })
            }
            let formats = Self.formats(s) ?? []
            if direction == GST_PAD_SINK, formats.contains(grey) {
                if formats != [grey] { append(gst_structure_copy(s)) }
                let colour = gst_structure_copy(s)!
                set(colour, formats: formats == [grey] ? colourFormats + [grey] : colourFormats)
                gst_structure_remove_field(colour, "chroma-site")
                if gst_structure_has_field(colour, "colorimetry") == 0 {
                    setString(colour, "colorimetry", greyDefaultColorimetry)
                }
                append(colour)
            } else if direction == GST_PAD_SRC, !formats.contains(grey), formats.contains(where: colourFormats.contains) {
                let s = gst_structure_copy(s)!
                set(s, formats: formats + [grey])
                append(s)
            } else {
                append(gst_structure_copy(s))
            }
        }
        return result
    }

    /// Fixates output `caps` (candidates in downstream's order, transfer full in and out) on the
    /// first candidate taking a colour format, restricted to the colour formats: grey input then
    /// leaves in colour even when downstream would take grey too (`videoconvert ! jpegenc`
    /// prefers passing grey through). Without such a candidate: the first, as GStreamer would.
    static func fixate(_ caps: UnsafeMutablePointer<GstCaps>) -> UnsafeMutablePointer<GstCaps> {
        for i in 0..<gst_caps_get_size(caps) {
            let s = gst_caps_get_structure(caps, i)!
            let colour = (formats(s) ?? []).filter(colourFormats.contains)
            guard !colour.isEmpty else { continue }
            let chosen = gst_caps_new_empty()!
            let copy = gst_structure_copy(s)!
            set(copy, formats: colour)
            gst_caps_append_structure_full(chosen, copy, gst_caps_get_features(caps, i).map { gst_caps_features_copy($0) })
            gst_mini_object_unref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self))
            return gst_caps_fixate(chosen)
        }
        return gst_caps_fixate(caps)
    }

    /// Copies the luma of a GRAY8 `input` into `output` (I420 or NV12) and fills its chroma with
    /// 128 (no colour).
    static func convert(_ input: VideoFrame, into output: VideoFrame) throws {
        let from = String(cString: gst_video_format_to_string(input.format))
        let to = String(cString: gst_video_format_to_string(output.format))
        guard from == grey, colourFormats.contains(to), input.width == output.width, input.height == output.height else {
            throw ElementError.format("cannot convert \(from) \(input.width)x\(input.height) to \(to) \(output.width)x\(output.height)")
        }
        let src = UnsafeRawPointer(input.plane(0)), dst = output.plane(0)
        let srcStride = input.stride(0), dstStride = output.stride(0)
        for y in 0..<output.height {
            (dst + y * dstStride).copyMemory(from: src + y * srcStride, byteCount: output.width)
        }
        let chromaRows = (output.height + 1) / 2
        for p in 1..<output.planeCount {
            output.plane(p).initializeMemory(as: UInt8.self, repeating: 128, count: output.stride(p) * chromaRows)
        }
    }

    /// The format names a structure takes; nil when it has no `format` field (any format) or
    /// names it otherwise than as a string or a list.
    private static func formats(_ s: UnsafePointer<GstStructure>) -> [String]? {
        guard let v = gst_structure_get_value(s, "format") else { return nil }
        if g_type_check_value_holds(v, ar_value_gtype(AR_VALUE_STRING)) != 0 {
            return g_value_get_string(v).map { [String(cString: $0)] } ?? []
        }
        guard g_type_check_value_holds(v, gst_value_list_get_type()) != 0 else { return nil }
        return (0..<gst_value_list_get_size(v)).compactMap { i in
            gst_value_list_get_value(v, i).flatMap { g_value_get_string($0) }.map { String(cString: $0) }
        }
    }

    /// Sets the `format` field: one name, or a list of them.
    private static func set(_ s: UnsafeMutablePointer<GstStructure>, formats: [String]) {
        if formats.count == 1 {
            setString(s, "format", formats[0])
            return
        }
        var list = GValue()
        g_value_init(&list, gst_value_list_get_type())
        for f in formats {
            var e = GValue()
            g_value_init(&e, ar_value_gtype(AR_VALUE_STRING))
            g_value_set_string(&e, f)
            gst_value_list_append_and_take_value(&list, &e)
        }
        gst_structure_take_value(s, "format", &list)
    }

    private static func setString(_ s: UnsafeMutablePointer<GstStructure>, _ field: String, _ string: String) {
        var v = GValue()
        g_value_init(&v, ar_value_gtype(AR_VALUE_STRING))
        g_value_set_string(&v, string)
        gst_structure_take_value(s, field, &v)
    }
}
