import ARCore
import CGStreamer

/// One target on a buffer: a code (the original kind, hence the name) or a rectangle.
///
/// Targets travel in two forms, written together by `Buffer.setBarcodeRegions`:
/// - one standard `GstVideoRegionOfInterestMeta` per code, for any GStreamer element:
///   `roi_type` = symbology (e.g. `QR-Code`), `id` = track id (-1 before tracking), x/y/w/h = the
///   quad's bounding box, and a params structure named `arbarcode` (fields below);
/// - one `ArBarcodeMeta` custom meta per frame (a structure `arbarcode-frame` with the frame
///   `width` and `height` the quads refer to and a `codes` list of `arbarcode` structures). It has
///   no tags, so converters and scalers copy it as is; readers rescale the quads to the frame they
///   see. (GStreamer 1.22 drops ROI params when a scaler transforms the ROI meta.)
///
/// `arbarcode` fields: `data` (string, UTF-8 with replacement), `payload` (GBytes, exact bytes),
/// `symbology` (string), `quad` (array of 8 doubles: x0,y0 … x3,y3 in pixels, clockwise from the
/// code's own top-left), `state` (`detected` | `tracked` | `occluded` | `lost` | `located`), `quality`
/// (int), `kind` (`code` | `rectangle` | `note`) and, once tracked, `track-id` (uint64).
///
/// A rectangle (`kind` = `rectangle`, from `arrecttrack`) has `symbology` = `rectangle` (also the
/// ROI's `roi_type`), no `data` or `payload`, and `aspect` (double, shorter side over longer, 0…1)
/// and `confidence` (double, 0…1); in the metas (not in messages or signals) it also carries
/// `reference`: a GstSample holding its picture as first found, rectified (RGBA, upright).
///
/// A `located` region (seen by a localizer, not read by any decode pass) has no payload and no
/// track id: `roi_type` and `symbology` are its class (`1D` or `2D`), `id` is -1, and its structure
/// has only `symbology`, `quad`, `state` = `located` and `quality`, no `data` or `payload` (read
/// back, its payload is empty).
public struct BarcodeRegion: Equatable, Sendable {
    /// Name of the per-code structure.
    public static let paramsName = "arbarcode"
    /// Name of the custom meta and of its structure.
    public static let metaName = "ArBarcodeMeta"
    static let frameStructureName = "arbarcode-frame"

    /// Track id; nil for a detection not yet tracked, and for a `located` region.
    public var trackID: UInt64?
    /// Symbology name (e.g. `QR-Code`); for a `located` region its class, `1D` or `2D`.
    public var symbology: String
    /// The decoded bytes, exactly as read; empty for a `located` region.
    public var payload: [UInt8]
    /// Corners in frame pixels.
    public var quad: Quad
    public var state: TrackState
    /// Detector quality (zbar: scan lines that agreed); 0 when unknown.
    public var quality: Int
    /// What the target is.
    public var kind: TargetKind = .code
    /// Codes: whether `quad` is the whole code. False for a 1D outline the detector could not fit
    /// edge by edge, or one cut by the frame's edge: a tracker takes it as confirming its track
    /// without shrinking it to this quad. Structure field `outline-complete` (written only when false).
    public var outlineComplete = true
    /// Codes: whether `quad` touched the frame's edge where it was read (`Detection.atFrameEdge`).
    /// Structure field `at-frame-edge` (written only when true).
    public var atFrameEdge = false
    /// Rectangles: shorter side over longer, 0…1, as seen; nil for other kinds.
    public var aspect: Double?
    /// Rectangles: detection confidence, 0…1; nil for other kinds.
    public var confidence: Double?
    /// Rectangles: the picture rectified as first found; nil when none travels with it.
    public var reference: TargetReference?

    public init(trackID: UInt64?, symbology: String, payload: [UInt8], quad: Quad, state: TrackState, quality: Int) {
        self.trackID = trackID
        self.symbology = symbology
        self.payload = payload
        self.quad = quad
        self.state = state
        self.quality = quality
    }

    /// A region a localizer found on this frame that no decode pass read: `symbologyClass` is `1D`
    /// or `2D`, `quad` in frame pixels; no payload, no track id.
    public init(locatedClass symbologyClass: String, quad: Quad, quality: Int = 0) {
        self.init(trackID: nil, symbology: symbologyClass, payload: [], quad: quad, state: .located, quality: quality)
    }

    /// A rectangle (`kind` `rectangle`, symbology `rectangle`, no payload): `aspect` and
    /// `confidence` in 0…1, `quad` in frame pixels.
    public init(rectangleID trackID: UInt64?, quad: Quad, state: TrackState, aspect: Double, confidence: Double,
                reference: TargetReference? = nil) {
        self.init(trackID: trackID, symbology: TargetKind.rectangle.rawValue, payload: [], quad: quad, state: state, quality: 0)
        kind = .rectangle
        self.aspect = aspect
        self.confidence = confidence
        self.reference = reference
    }

    /// The payload as text (`PayloadText`: UTF-8, else Shift JIS for QR codes, else ISO 8859-1);
    /// `payload` holds the exact bytes.
    public var text: String { PayloadText.text(payload, symbology: symbology) }

    /// This target as a JSON Lines object (id 0 when not tracked).
    public var record: ObjectRecord {
        ObjectRecord(id: trackID ?? 0, symbology: symbology, payload: payload, quad: quad, state: state, kind: kind,
                     aspect: aspect, confidence: confidence)
    }

    /// The `arbarcode` structure describing this target (without `data` and `payload` when
    /// `located` or not a code); with `reference` false, without the reference picture (messages
    /// and signals: small structures).
    public func structure(reference withReference: Bool = true) -> OwnedStructure {
        let s = OwnedStructure(name: BarcodeRegion.paramsName)
        // A code's payload; a note's text. Located regions and rectangles have none.
        if state != .located && kind != .rectangle {
            s.set("data", string: text)
            s.set("payload", bytes: payload)
        }
        s.set("symbology", string: symbology)
        s.set("quad", doubles: quad.corners.flatMap { [$0.x, $0.y] })
        s.set("state", string: state.rawValue)
        s.set("quality", int: Int32(clamping: quality))
        if let id = trackID { s.set("track-id", uint64: id) }
        if !outlineComplete { s.set("outline-complete", bool: false) }
        if atFrameEdge { s.set("at-frame-edge", bool: true) }
        s.set("kind", string: kind.rawValue)
        if let aspect { s.set("aspect", double: aspect) }
        if let confidence { s.set("confidence", double: confidence) }
        if withReference, let reference { s.set("reference", sample: reference.sample) }
        return s
    }

    /// Reads an `arbarcode` structure; nil when it lacks a valid quad. Without `payload` and `data`
    /// (a `located` region) the payload is empty.
    public init?(structure: StructureView, fallbackSymbology: String? = nil) {
        guard let q = structure.doubles("quad"), q.count == 8, q.allSatisfy(\.isFinite),
              let quad = Quad([Point(x: q[0], y: q[1]), Point(x: q[2], y: q[3]), Point(x: q[4], y: q[5]), Point(x: q[6], y: q[7])])
        else { return nil }
        self.init(trackID: structure.uint64("track-id"),
                  symbology: structure.string("symbology") ?? fallbackSymbology ?? "",
                  payload: structure.bytes("payload") ?? Array((structure.string("data") ?? "").utf8),
                  quad: quad,
                  state: structure.string("state").flatMap(TrackState.init(rawValue:)) ?? .detected,
                  quality: Int(structure.int("quality") ?? 0))
        kind = structure.string("kind").flatMap(TargetKind.init(rawValue:)) ?? .code
        outlineComplete = structure.bool("outline-complete") ?? true
        atFrameEdge = structure.bool("at-frame-edge") ?? false
        aspect = structure.double("aspect")
        confidence = structure.double("confidence")
        reference = structure.sample("reference").map(TargetReference.init(retaining:))
    }
}

/// Registers the custom meta once per process.
private let barcodeMetaRegistered: Bool = {
    var noTags: [UnsafePointer<CChar>?] = [nil]
    return noTags.withUnsafeMutableBufferPointer {
        gst_meta_register_custom(BarcodeRegion.metaName, $0.baseAddress, nil, nil, nil) != nil
    }
}()

extension VideoFrame {
    /// The codes on this frame, quads in this frame's pixels.
    public var barcodeRegions: [BarcodeRegion] { buffer.barcodeRegions(frameWidth: width, frameHeight: height) }

    /// Replaces the codes on this frame; quads in this frame's pixels.
    public func setBarcodeRegions(_ regions: [BarcodeRegion]) {
        buffer.setBarcodeRegions(regions, frameWidth: width, frameHeight: height)
    }
}

extension Buffer {
    /// Replaces the buffer's codes with `regions`, whose quads are in pixels of a
    /// `frameWidth` × `frameHeight` frame. The buffer must be writable (it is in `transform`).
    public func setBarcodeRegions(_ regions: [BarcodeRegion], frameWidth: Int, frameHeight: Int) {
        removeBarcodeRegions()
        guard !regions.isEmpty else { return }
        let bounds = Rect(x: 0, y: 0, width: Double(frameWidth), height: Double(frameHeight))
        // Clamped to the frame: a code partly (or, after motion, wholly) outside still gets a valid box.
        func clamp(_ v: Double, _ limit: Int) -> UInt32 { UInt32(min(max(0, v), Double(limit))) }
        let regions = regions.filter { $0.quad.isFinite }
        for region in regions {
            let box = region.quad.boundingBox.intersection(bounds).integral
            let meta = gst_buffer_add_video_region_of_interest_meta(pointer, region.symbology, clamp(box.x, frameWidth),
                                                                    clamp(box.y, frameHeight), clamp(box.width, frameWidth),
                                                                    clamp(box.height, frameHeight))!
            meta.pointee.id = region.trackID.map { Int32(truncatingIfNeeded: $0) } ?? -1
            meta.pointee.parent_id = -1
            gst_video_region_of_interest_meta_add_param(meta, region.structure().release())
        }
        precondition(barcodeMetaRegistered, "registering ArBarcodeMeta failed")
        guard let custom = gst_buffer_add_custom_meta(pointer, BarcodeRegion.metaName),
              let s = gst_custom_meta_get_structure(custom) else { return }
        gst_structure_set_name(s, BarcodeRegion.frameStructureName)
        let frame = OwnedStructure(name: BarcodeRegion.frameStructureName)
        frame.set("width", int: Int32(frameWidth))
        frame.set("height", int: Int32(frameHeight))
        frame.set("codes", structures: regions.map { $0.structure() })
        // The meta owns its structure: move the fields over.
        for field in ["width", "height", "codes"] {
            gst_structure_set_value(s, field, gst_structure_get_value(frame.borrowed, field))
        }
    }

    /// The buffer's codes with quads in pixels of a `frameWidth` × `frameHeight` frame: from the
    /// `ArBarcodeMeta` (rescaled if the video was scaled since), else from ROI metas carrying
    /// `arbarcode` params (e.g. written by another element), mapped through their boxes.
    /// Without a frame size, quads are returned in the pixels of the frame they were written for.
    public func barcodeRegions(frameWidth: Int? = nil, frameHeight: Int? = nil) -> [BarcodeRegion] {
        if barcodeMetaRegistered, let custom = gst_buffer_get_custom_meta(pointer, BarcodeRegion.metaName),
           let s = gst_custom_meta_get_structure(custom) {
            let view = StructureView(s)
            let w = Double(view.int("width") ?? 0), h = Double(view.int("height") ?? 0)
            let sx = w > 0 && frameWidth != nil ? Double(frameWidth!) / w : 1
            let sy = h > 0 && frameHeight != nil ? Double(frameHeight!) / h : 1
            return view.structures("codes").compactMap { code in
                guard var r = BarcodeRegion(structure: code) else { return nil }
                if sx != 1 || sy != 1 { r.quad = r.quad.scaled(sx: sx, sy: sy) }
                return r
            }
        }
        var out: [BarcodeRegion] = []
        forEachRegionMeta { meta in
            if let params = gst_video_region_of_interest_meta_get_param(meta, BarcodeRegion.paramsName),
               var r = BarcodeRegion(structure: StructureView(params),
                                     fallbackSymbology: meta.pointee.roi_type == 0 ? nil
                                         : String(cString: g_quark_to_string(meta.pointee.roi_type))) {
                r.quad = Self.map(r.quad, toBox: meta.pointee)
                out.append(r)
            }
            return false
        }
        return out
    }

    /// Removes this project's metas: `ArBarcodeMeta` and ROI metas with `arbarcode` params.
    public func removeBarcodeRegions() {
        forEachRegionMeta { meta in
            gst_video_region_of_interest_meta_get_param(meta, BarcodeRegion.paramsName) != nil
        }
        if barcodeMetaRegistered, let custom = gst_buffer_get_custom_meta(pointer, BarcodeRegion.metaName) {
            _ = custom.withMemoryRebound(to: GstMeta.self, capacity: 1) { gst_buffer_remove_meta(pointer, $0) }
        }
    }

    /// Maps a quad whose ROI box was moved or scaled by another element onto that box.
    private static func map(_ quad: Quad, toBox roi: GstVideoRegionOfInterestMeta) -> Quad {
        let b = quad.boundingBox
        guard b.width > 1, b.height > 1, roi.w > 0, roi.h > 0 else { return quad }
        let sx = Double(roi.w) / b.width, sy = Double(roi.h) / b.height
        // Within rounding of the box: leave the exact corners alone.
        if abs(sx - 1) < 0.05, abs(sy - 1) < 0.05 { return quad }
        return quad.translated(dx: -b.minX, dy: -b.minY).scaled(sx: sx, sy: sy).translated(dx: Double(roi.x), dy: Double(roi.y))
    }

    /// Calls `body` on each ROI meta; removes the meta when `body` returns true.
    private func forEachRegionMeta(_ body: (UnsafeMutablePointer<GstVideoRegionOfInterestMeta>) -> Bool) {
        var state: gpointer? = nil
        let api = gst_video_region_of_interest_meta_api_get_type()
        var doomed: [UnsafeMutablePointer<GstMeta>] = []
        while let meta = gst_buffer_iterate_meta_filtered(pointer, &state, api) {
            let roi = UnsafeMutableRawPointer(meta).assumingMemoryBound(to: GstVideoRegionOfInterestMeta.self)
            if body(roi) { doomed.append(meta) }
        }
        for meta in doomed { _ = gst_buffer_remove_meta(pointer, meta) }
    }
}
